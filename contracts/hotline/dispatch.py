"""The dispatcher's queue: the organisation's open tickets by due time, each with its light (red: overdue, yellow:
due soon, green: on time, grey: answered or closed), routing, region and repeat case, filtered as dispatchers do."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from contracts.hotline.deadlines.models import Progress, TicketDeadline
from contracts.models import Organisation, Result

# How many of the most urgent tickets one page reads before filtering by category, department, region or case
# (those live in each ticket's newest result and its metadata); the page shows the first QUEUE_ROWS that match.
CANDIDATES = 2000
QUEUE_ROWS = 200


@dataclass(frozen=True)
class QueueFilter:
    """What a dispatcher narrows the queue to (empty: everything open)."""

    category: str = ""
    department: str = ""
    region: str = ""
    repeats_only: bool = False
    overdue_only: bool = False
    include_closed: bool = False


@dataclass
class QueueRow:
    """One ticket in the queue."""

    deadline: TicketDeadline
    light: str  # red | yellow | green | grey
    category: str | None
    department: str | None
    region: str | None
    case_id: Any = None
    case_size: int = 1
    findings: list[dict[str, Any]] = field(default_factory=list)
    preview: str = ""  # what the list shows of an untitled ticket (set by the page, masked)

    @property
    def document(self) -> Any:
        return self.deadline.document


def light_of(deadline: TicketDeadline, now: datetime) -> str:
    """The ticket's light: grey once answered or closed, red past its due time, yellow from due soon, else green."""
    if deadline.stopped_at is not None or deadline.progress == Progress.CLOSED:
        return "grey"
    if deadline.due_at is not None and now >= deadline.due_at:
        return "red"
    if deadline.due_soon_at is not None and now >= deadline.due_soon_at:
        return "yellow"
    return "green"


def _latest_findings(document_ids: list[Any]) -> dict[Any, list[dict[str, Any]]]:
    """The findings of each document's newest result."""
    newest: dict[Any, tuple[int, list[dict[str, Any]]]] = {}
    for document_id, version, data in Result.objects.filter(document_id__in=document_ids).values_list(
        "document_id", "version", "data"
    ):
        if document_id not in newest or version > newest[document_id][0]:
            newest[document_id] = (version, list((data or {}).get("findings") or []))
    return {document_id: found for document_id, (_, found) in newest.items()}


def _row(deadline: TicketDeadline, findings: list[dict[str, Any]], now: datetime) -> QueueRow:
    category = next((f for f in findings if f.get("kind") == "ticket_category"), {})
    case = next((f for f in findings if f.get("kind") == "repeat_case"), {})
    membership = getattr(deadline.document, "case_ticket", None)
    return QueueRow(
        deadline=deadline,
        light=light_of(deadline, now),
        category=category.get("label"),
        department=deadline.department or category.get("department"),
        region=(deadline.document.metadata or {}).get("region"),
        case_id=membership.case_id if membership is not None else case.get("case_id"),
        case_size=1 + len(case.get("earlier_tickets") or []),
        findings=findings,
    )


def _wanted(row: QueueRow, chosen: QueueFilter) -> bool:
    return (
        (not chosen.category or row.category == chosen.category)
        and (not chosen.department or chosen.department in (row.department or ""))
        and (not chosen.region or chosen.region in (row.region or ""))
        and (not chosen.repeats_only or row.case_size > 1)
        and (not chosen.overdue_only or row.light == "red")
    )


def dispatch_queue(
    organisation: Organisation, chosen: QueueFilter, *, now: datetime | None = None
) -> tuple[list[QueueRow], bool]:
    """The queue, soonest due first (tickets not yet timed last), and whether more matched than are shown."""
    now = now or timezone.now()
    deadlines = TicketDeadline.objects.filter(organisation=organisation, due_at__isnull=False)
    if not chosen.include_closed:
        deadlines = deadlines.filter(Q(stopped_at__isnull=True) & ~Q(progress=Progress.CLOSED))
    if chosen.overdue_only:
        deadlines = deadlines.filter(due_at__lte=now)
    candidates = list(
        deadlines.select_related("document", "document__case_ticket").order_by("due_at", "document_id")[:CANDIDATES]
    )
    findings = _latest_findings([d.document_id for d in candidates])
    rows = [row for d in candidates if _wanted(row := _row(d, findings.get(d.document_id, []), now), chosen)]
    return rows[:QUEUE_ROWS], len(rows) > QUEUE_ROWS or len(candidates) == CANDIDATES
