"""A ticket's time limit and progress on its document page."""

from __future__ import annotations

from typing import Any

from contracts.hotline.deadlines.models import TicketDeadline
from contracts.models import AuditEvent, Document

SHOWN_EVENTS = 20


def deadline_context(document: Document) -> dict[str, Any]:
    """The ticket's deadline row (None for a contract, or a ticket whose first result is not stored yet) and its
    latest progress reports and escalations from the audit log, oldest first."""
    deadline = TicketDeadline.objects.filter(pk=document.pk).first()
    if deadline is None:
        return {"deadline": None, "deadline_events": []}
    events = AuditEvent.objects.filter(
        object_type=TicketDeadline._meta.model_name, object_id=str(document.pk), action__startswith="ticket."
    ).order_by("-created_at", "-id")[:SHOWN_EVENTS]
    return {"deadline": deadline, "deadline_events": list(reversed(events))}
