"""What the hotline platform reports back about a ticket: dispatched to a department, answered, closed, or returned
by the department (退单). Each report is a checked transition, audited; `answered` and `closed` stop the clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from contracts.audit import audit_record
from contracts.hotline.deadlines.clock import deadline_data, received_at_of
from contracts.hotline.deadlines.models import Progress, TicketDeadline
from contracts.models import ApiKey, Document, DocumentKind
from contracts.refusals import Refused

# Which report may follow which. `returned` sends the ticket back to dispatch (its clock keeps running: the
# citizen's time limit counts from when they called, whoever handles it); `closed` (办结) ends it.
NEXT: dict[str, frozenset[str]] = {
    Progress.RECEIVED: frozenset({Progress.DISPATCHED, Progress.ANSWERED}),
    Progress.DISPATCHED: frozenset({Progress.ANSWERED, Progress.RETURNED}),
    Progress.RETURNED: frozenset({Progress.DISPATCHED, Progress.ANSWERED}),
    Progress.ANSWERED: frozenset({Progress.CLOSED}),
    Progress.CLOSED: frozenset(),
}
CLOCK_STOPPING = frozenset({Progress.ANSWERED, Progress.CLOSED})


class ProgressRefused(Refused):
    """A progress report DocGate refuses: not a ticket (409), a step the ticket's state does not allow (409)."""

    status = 409


@dataclass(frozen=True)
class ProgressReport:
    """One report: the new status, when it happened, and what goes with it (a department, a return's reason)."""

    status: str
    at: datetime
    department: str = ""
    reason: str = ""
    note: str = ""


def _fields(report: ProgressReport, deadline: TicketDeadline) -> dict[str, Any]:
    """The row's columns after the report."""
    fields: dict[str, Any] = {"progress": report.status, "progress_at": report.at, "updated_at": timezone.now()}
    if report.status == Progress.DISPATCHED:
        fields.update(department=report.department, return_reason="")
    elif report.status == Progress.RETURNED:
        fields.update(department="", return_reason=report.reason)
    if report.status in CLOCK_STOPPING and deadline.stopped_at is None:
        fields["stopped_at"] = report.at
    return fields


def ticket_progress_record(
    *, document: Document, report: ProgressReport, user: Any = None, api_key: ApiKey | None = None
) -> tuple[TicketDeadline, bool]:
    """Apply a report to the ticket's deadline row (made if its first result is not stored yet); return it and
    whether it changed. The same report as the last one again (a retried request) changes nothing; any other
    step the state does not allow raises ProgressRefused."""
    if document.kind != DocumentKind.TICKET:
        raise ProgressRefused("not_a_ticket", "Progress is reported for tickets only.")
    with transaction.atomic():
        TicketDeadline.objects.get_or_create(
            document=document,
            defaults={"organisation_id": document.organisation_id, "received_at": received_at_of(document)},
        )
        deadline = TicketDeadline.objects.select_for_update().get(pk=document.pk)
        current = deadline.progress
        if current == report.status and _repeats(deadline, report):
            return deadline, False
        if report.status not in NEXT[current]:
            allowed = ", ".join(sorted(NEXT[current])) or "nothing: the ticket is closed"
            raise ProgressRefused(
                "invalid_transition", f"A ticket that is {current} cannot be {report.status}; allowed: {allowed}."
            )
        before = deadline_data(deadline)
        TicketDeadline.objects.filter(pk=deadline.pk, progress=current).update(**_fields(report, deadline))
        deadline.refresh_from_db()
        audit_record(
            organisation=document.organisation,
            action=f"ticket.{report.status}",
            obj=deadline,
            user=user,
            api_key=api_key,
            before=before["progress"] if before else None,
            after={**(deadline_data(deadline) or {})["progress"], "note": report.note or None},
        )
    return deadline, True


def _repeats(deadline: TicketDeadline, report: ProgressReport) -> bool:
    """Whether a report restates the ticket's current status with the same details."""
    if report.status == Progress.DISPATCHED:
        return deadline.department == report.department
    if report.status == Progress.RETURNED:
        return deadline.return_reason == report.reason
    return True
