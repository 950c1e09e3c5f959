"""Append-only audit trail: one helper records every state-changing action."""

from __future__ import annotations

from typing import Any

from django.db import models

from contracts.models import ApiKey, AuditEvent, Organisation


def audit_record(
    *,
    organisation: Organisation,
    action: str,
    obj: models.Model,
    user: Any = None,
    api_key: ApiKey | None = None,
    system: str = "",
    before: Any = None,
    after: Any = None,
) -> AuditEvent:
    """Append an audit event naming the actor (user, API key or system part) and the object changed."""
    return AuditEvent.objects.create(
        organisation=organisation,
        actor_user=user if getattr(user, "is_authenticated", False) else None,
        actor_api_key=api_key,
        actor_system=system,
        action=action,
        object_type=obj._meta.model_name or type(obj).__name__,
        object_id=str(obj.pk),
        before=before,
        after=after,
    )
