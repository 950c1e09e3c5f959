"""The legal desk's report: a Word file of the contract with a comment at each finding, a one-page summary, and
the summary as a PDF (`contracts.legal.report.export` builds and releases them)."""
