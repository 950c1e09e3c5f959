"""A ticket's clock: when it was received, its tier under the organisation's service levels, and when it is due;
set whenever one of its results is stored (the hotline desk's `result_stored`)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from contracts.hotline.deadlines.calendar import work_calendar
from contracts.hotline.deadlines.models import ServiceLevel, TicketDeadline
from contracts.models import Document, Organisation, Result
from rules.tickets.service_levels import Tier, ticket_deadline, tier_parse
from rules.tickets.work_calendar import OFFICIAL

logger = logging.getLogger(__name__)


class ReceivedAtInvalid(ValueError):
    """A `received_at` DocGate refuses: no timezone, or later than now."""


def received_at_check(moment: datetime, *, now: datetime | None = None) -> datetime:
    """A received time as given (ISO 8601 with its timezone), refused when it has none or lies more than
    DOCGATE_RECEIVED_AT_SKEW_S in the future (the platform's clock may run a little ahead of ours)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ReceivedAtInvalid("received_at must state its timezone (e.g. 2026-12-01T09:30:00+08:00 or …Z).")
    latest = (now or timezone.now()) + timedelta(seconds=settings.DOCGATE_RECEIVED_AT_SKEW_S)
    if moment > latest:
        raise ReceivedAtInvalid("received_at lies in the future.")
    return moment


def received_at_of(document: Document) -> datetime:
    """When the citizen called or wrote: the platform's `received_at` (checked at intake), else the upload time."""
    stated = (document.metadata or {}).get("received_at")
    if isinstance(stated, str):
        try:
            moment = datetime.fromisoformat(stated)
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None:
            return moment
        logger.warning("document %s: ignoring a malformed received_at %r", document.pk, stated)
    return document.created_at


def service_level_overrides(organisation: Organisation | int) -> dict[str, Tier]:
    """The organisation's own tier limits (Django admin, ticket service levels), by tier."""
    rows = ServiceLevel.objects.filter(organisation=organisation)
    return {row.tier: tier_parse(row.tier, {"limit": row.limit, "unit": row.unit}) for row in rows}


def _first(findings: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next((f for f in findings if isinstance(f, dict) and f.get("kind") == kind), {})


def ticket_deadline_get(document: Document) -> TicketDeadline:
    """The ticket's deadline row, made (received, not yet due) when it has none."""
    deadline, _ = TicketDeadline.objects.get_or_create(
        document=document,
        defaults={"organisation_id": document.organisation_id, "received_at": received_at_of(document)},
    )
    return deadline


def ticket_deadline_store(*, result: Result) -> TicketDeadline:
    """Set the ticket's tier and due times from a result just stored (its category and urgency findings; a
    reviewer's correction changes them). Marks already made stay: a ticket is marked due soon or overdue once."""
    document = result.document
    deadline = ticket_deadline_get(document)
    findings = list((result.data or {}).get("findings") or [])
    category = _first(findings, "ticket_category")
    calendar = work_calendar(document.organisation_id)
    due = ticket_deadline(
        deadline.received_at,
        urgency=_first(findings, "urgency").get("label"),
        level2=category.get("level2"),
        level3=category.get("level3"),
        overrides=service_level_overrides(document.organisation_id),
        zone=ZoneInfo(settings.TIME_ZONE),
        due_soon_share=settings.DOCGATE_DEADLINE_DUE_SOON_SHARE,
        calendar=calendar,
    )
    if due.tier.unit == "working_days" and calendar.year_status(due.due_at.year) != OFFICIAL:
        logger.warning(
            "ticket %s is due in %s, a year the holiday calendar holds as %s: its working days skip weekends and the "
            "listed holidays only (manage.py work_calendar load)",
            document.pk,
            due.due_at.year,
            calendar.year_status(due.due_at.year) or "missing",
        )
    TicketDeadline.objects.filter(pk=deadline.pk).update(
        tier=due.tier.name,
        limit=due.tier.limit,
        unit=due.tier.unit,
        rule_id=due.rule_id or "",
        due_at=due.due_at,
        due_soon_at=due.due_soon_at,
        updated_at=timezone.now(),
    )
    deadline.refresh_from_db()
    return deadline


def deadline_data(deadline: TicketDeadline | None) -> dict[str, Any] | None:
    """A ticket's deadline and progress as the API, webhooks and portal show them (None: not a ticket)."""
    if deadline is None:
        return None

    def iso(moment: datetime | None) -> str | None:
        return moment.isoformat() if moment is not None else None

    return {
        "received_at": iso(deadline.received_at),
        "tier": deadline.tier or None,
        "limit": {"value": deadline.limit, "unit": deadline.unit} if deadline.limit else None,
        "due_at": iso(deadline.due_at),
        "due_soon_at": iso(deadline.due_soon_at),
        "state": deadline.state,
        "clock_stopped_at": iso(deadline.stopped_at),
        "progress": {
            "status": deadline.progress,
            "at": iso(deadline.progress_at),
            "department": deadline.department or None,
            "return_reason": deadline.return_reason or None,
        },
    }
