"""Tenancy: organisations, their members and roles, and invitations to join (Organisation and Membership live in
contracts.models, Invitation in tenancy.models)."""
