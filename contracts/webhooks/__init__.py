"""Webhooks: endpoints (configuration), delivery (the state machine), outbound (signing and target vetting)."""
