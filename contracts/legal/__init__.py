"""The legal desk: contracts, for legal teams (clause types, statutory risks, the risk summary)."""
