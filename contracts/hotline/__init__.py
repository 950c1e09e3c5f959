"""The hotline desk: citizen tickets, for dispatchers (category, routing, urgency, the reply)."""
