"""Webhooks: endpoints (configuration), delivery (the state machine), signing (Standard Webhooks secrets and
signatures), outbound (target vetting)."""
