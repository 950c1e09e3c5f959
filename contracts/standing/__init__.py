"""Whether the model earns its place: per organisation, question and model, the share of its answers that were
valid, grounded and agreed with the final result, and the rules-only policy that follows from it."""
