"""Beat's escalation of ticket deadlines: mark tickets due soon and overdue, once each, raise their review
priority and tell the organisation (`ticket.due_soon`, `ticket.overdue` webhooks)."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from contracts.audit import audit_record
from contracts.hotline.deadlines.clock import deadline_data
from contracts.hotline.deadlines.models import DeadlineState, TicketDeadline
from contracts.models import ReviewState, ReviewTask
from contracts.webhooks.delivery import webhook_event_document

EVENT_DUE_SOON = "ticket.due_soon"
EVENT_OVERDUE = "ticket.overdue"
BATCH = 500  # per mark and run: beat comes back within a minute for the rest


def _running() -> QuerySet[TicketDeadline]:
    return TicketDeadline.objects.filter(stopped_at__isnull=True)


def deadlines_overdue(now: datetime) -> QuerySet[TicketDeadline]:
    """Tickets past their due time that are not marked overdue yet (index `deadline_overdue`)."""
    return _running().filter(state__in=[DeadlineState.ON_TIME, DeadlineState.DUE_SOON], due_at__lte=now)


def deadlines_due_soon(now: datetime) -> QuerySet[TicketDeadline]:
    """Tickets with less than their due-soon share of time left, not marked yet (index `deadline_due_soon`)."""
    return _running().filter(state=DeadlineState.ON_TIME, due_soon_at__lte=now)


def _mark(candidates: QuerySet[TicketDeadline], state: DeadlineState, now: datetime) -> int:
    """Mark each candidate with `state` by a conditional UPDATE (one that another run, or an `answered` report,
    got to first matches nothing and is skipped), then escalate it in the same transaction; how many were marked."""
    stamp = "overdue_marked_at" if state == DeadlineState.OVERDUE else "due_soon_marked_at"
    event = EVENT_OVERDUE if state == DeadlineState.OVERDUE else EVENT_DUE_SOON
    priority = settings.DOCGATE_DEADLINE_PRIORITY[state]
    marked = 0
    for pk in list(candidates.order_by("due_at").values_list("pk", flat=True)[:BATCH]):
        with transaction.atomic():
            if candidates.filter(pk=pk).update(state=state, updated_at=now, **{stamp: now}) != 1:
                continue
            deadline = TicketDeadline.objects.select_related("document", "organisation").get(pk=pk)
            open_tasks = ReviewTask.objects.filter(document_id=pk).exclude(state=ReviewState.FINALIZED)
            open_tasks.update(priority=Greatest(F("priority"), Value(priority)))
            shown = deadline_data(deadline)
            audit_record(
                organisation=deadline.organisation, action=event, obj=deadline, system="deadlines", after=shown
            )
            webhook_event_document(
                document=deadline.document, event=event, event_key=f"{event}:{pk}", body={"deadline": shown}
            )
            marked += 1
    return marked


def _priorities_hold() -> None:
    """Raise review tasks opened after their ticket was marked (a job that finished late) to the mark's priority."""
    for state in (DeadlineState.OVERDUE, DeadlineState.DUE_SOON):
        priority = settings.DOCGATE_DEADLINE_PRIORITY[state]
        behind = ReviewTask.objects.filter(document__ticket_deadline__state=state, priority__lt=priority)
        behind.exclude(state=ReviewState.FINALIZED).update(priority=priority)


def deadlines_escalate(*, now: datetime | None = None) -> dict[str, int]:
    """Mark what fell overdue, then what fell due soon (a ticket already past due is marked overdue only); how
    many of each. Run twice, the second run marks nothing."""
    moment = now or timezone.now()
    overdue = _mark(deadlines_overdue(moment), DeadlineState.OVERDUE, moment)
    due_soon = _mark(deadlines_due_soon(moment), DeadlineState.DUE_SOON, moment)
    _priorities_hold()
    return {"overdue": overdue, "due_soon": due_soon}
