"""Tenancy: organisations, their members and roles (the models live in contracts.models)."""
