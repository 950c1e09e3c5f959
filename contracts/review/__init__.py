"""Human review: the workflow of review tasks (claim, decide, finalize) and the reviewed result it writes."""
