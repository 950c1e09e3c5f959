"""Repeat cases (重复件): store a ticket's signature, find the earlier ticket it repeats, join that ticket's case;
reviewers merge and split cases.

The look-up is the rules phase's (`HotlineDesk.stored_findings`): a ticket is compared with its organisation's
tickets of the `DOCGATE_REPEAT_WINDOW_DAYS` before it. Candidates are the tickets sharing an LSH band key (one
indexed range per band of `TicketBand`: the newest `PER_BAND` rows of the window), at most `CANDIDATES`, most
shared bands first; each
is scored with its stored signature (`rules.tickets.repeats`); the best one that is a repeat, never one naming a
different place, gives the ticket its case. Assignment runs under a lock on the organisation's row, so two
repeats arriving at once join one case; it is idempotent: a ticket that has a case keeps it (a reviewer's split
is never undone by a rerun).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from contracts.audit import audit_record
from contracts.findings import Finding
from contracts.hotline.findings import case_finding
from contracts.hotline.models import Case, CaseJoin, CaseTicket, TicketBand, TicketSignature
from contracts.models import Document, Organisation
from contracts.refusals import Refused
from rules.tickets.place_names import place_keys, places_from_keys
from rules.tickets.repeats import RepeatMatch, best_repeats, ticket_signature
from rules.tickets.repeats import TicketSignature as Signature

CANDIDATES = 20  # band-sharing tickets scored per look-up (the most shared first)
PER_BAND = 64  # newest rows read per band key: a bound on one look-up's work, whatever the history
EARLIER_SHOWN = 10  # earlier tickets a result names


class CaseError(Refused):
    """A merge or split DocGate refuses (a 404 for a case or ticket the organisation does not have, else 409)."""

    status = 409


@dataclass(frozen=True)
class CaseAssignment:
    """A ticket's case after the look-up: the case, how the ticket joined, the match and the earlier tickets."""

    case: Case
    joined_by: str
    match: RepeatMatch | None
    earlier: list[dict[str, Any]] = field(default_factory=list)


def signature_store(document: Document, signature: Signature) -> None:
    """Store (or replace) a ticket's signature and its band rows."""
    TicketSignature.objects.update_or_create(
        document=document,
        defaults={
            "organisation_id": document.organisation_id,
            "created_at": document.created_at,
            "minhash": signature.to_bytes(),
            "places": place_keys(signature.places),
            "caller": signature.caller,
        },
    )
    TicketBand.objects.filter(document=document).delete()
    if not signature.empty:
        TicketBand.objects.bulk_create(
            TicketBand(
                organisation_id=document.organisation_id, key=key, document=document, created_at=document.created_at
            )
            for key in signature.bands
        )


def candidate_ids(
    organisation_id: int,
    signature: Signature,
    *,
    until: Any,
    upto: Any = None,
    exclude: Any = None,
    limit: int = CANDIDATES,
) -> list[uuid.UUID]:
    """Tickets of the window before `until` (and, with `upto`, those stored since, up to it) sharing a band key,
    most shared bands first, then newest first.

    Each band key reads at most PER_BAND of its newest rows (one backward range of the (organisation, key,
    created_at) index), so a hot spot with thousands of repeats in the window costs what a quiet key does; the
    database groups them and answers `limit` ids."""
    if signature.empty:
        return []
    since = until - timedelta(days=settings.DOCGATE_REPEAT_WINDOW_DAYS)
    ops = connection.ops
    table = ops.quote_name(TicketBand._meta.db_table)
    not_self = " AND document_id <> %s" if exclude is not None else ""
    one_band = (
        f"SELECT * FROM (SELECT document_id, created_at FROM {table} WHERE organisation_id = %s AND key = %s "
        f"AND created_at >= %s AND created_at <= %s{not_self} ORDER BY created_at DESC LIMIT {int(PER_BAND)}) AS b{{n}}"
    )
    keys = signature.bands
    sql = (
        "SELECT document_id, COUNT(*) AS shared, MAX(created_at) AS newest FROM ("
        + " UNION ALL ".join(one_band.format(n=n) for n in range(len(keys)))
        + ") AS bands GROUP BY document_id ORDER BY shared DESC, newest DESC, document_id LIMIT %s"
    )
    bounds = [ops.adapt_datetimefield_value(since), ops.adapt_datetimefield_value(max(until, upto or until))]
    own = [TicketBand._meta.get_field("document").get_db_prep_value(exclude, connection)] if exclude is not None else []
    params: list[Any] = [p for key in keys for p in (organisation_id, key, *bounds, *own)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, limit])
        rows = cursor.fetchall()
    field = TicketBand._meta.get_field("document")
    return [field.to_python(raw_id) for raw_id, _shared, _newest in rows]


def stored_signatures(ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, Signature]:
    """The stored signatures of these tickets."""
    found = TicketSignature.objects.filter(document_id__in=list(ids)).values_list(
        "document_id", "minhash", "places", "caller"
    )
    return {
        doc_id: Signature(Signature.values_from_bytes(bytes(raw)), places_from_keys(places or []), caller)
        for doc_id, raw, places, caller in found
    }


def repeats_find(document: Document, signature: Signature) -> list[RepeatMatch]:
    """The tickets of the window this ticket repeats, best first (deterministic for a given history). The window
    starts DOCGATE_REPEAT_WINDOW_DAYS before the ticket and takes in tickets received after it that were read first
    (a scanned letter read after the call that repeats it): either order ends in one case."""
    ids = candidate_ids(
        document.organisation_id, signature, until=document.created_at, upto=timezone.now(), exclude=document.pk
    )
    signatures = stored_signatures(ids)
    ordered = [(str(i), signatures[i]) for i in ids if i in signatures]
    return best_repeats(signature, ordered, settings.DOCGATE_REPEAT_THRESHOLD)


def _case_of(document_id: Any, organisation_id: int) -> Case:
    """The case of an earlier ticket, opening one for a ticket stored before it had a case."""
    membership = CaseTicket.objects.filter(document_id=document_id).select_related("case").first()
    if membership is not None:
        return membership.case
    case = Case.objects.create(organisation_id=organisation_id)
    CaseTicket.objects.create(document_id=document_id, case=case, organisation_id=organisation_id)
    return case


def earlier_tickets(case: Case, document: Document, limit: int = EARLIER_SHOWN) -> list[dict[str, Any]]:
    """The case's tickets before this one, newest first: id, reference, time, how each joined."""
    rows = (
        CaseTicket.objects.filter(case=case, document__created_at__lte=document.created_at)
        .exclude(document_id=document.pk)
        .select_related("document")
        .order_by("-document__created_at")[:limit]
    )
    return [
        {
            "document_id": str(row.document_id),
            "reference": row.document.reference,
            "created_at": row.document.created_at.isoformat(),
            "joined_by": row.joined_by,
        }
        for row in rows
    ]


def ticket_case_assign(*, document: Document, text: str) -> CaseAssignment:
    """Store the ticket's signature and give it its case: the case of the earlier ticket it repeats, else a new
    one; a ticket that already has a case keeps it. Returns the assignment the result reports."""
    caller = str((document.metadata or {}).get("caller_reference") or "")
    signature = ticket_signature(text, caller)
    with transaction.atomic():
        Organisation.objects.select_for_update().filter(pk=document.organisation_id).first()
        signature_store(document, signature)
        existing = CaseTicket.objects.filter(document=document).select_related("case").first()
        if existing is not None:
            return CaseAssignment(existing.case, existing.joined_by, None, earlier_tickets(existing.case, document))
        matches = repeats_find(document, signature)
        match = matches[0] if matches else None
        if match is None:
            case = Case.objects.create(organisation_id=document.organisation_id)
            CaseTicket.objects.create(document=document, case=case, organisation_id=document.organisation_id)
            return CaseAssignment(case, CaseJoin.FIRST, None, [])
        case = _case_of(uuid.UUID(match.ticket_id), document.organisation_id)
        CaseTicket.objects.create(
            document=document,
            case=case,
            organisation_id=document.organisation_id,
            joined_by=CaseJoin.REPEAT,
            repeats_id=uuid.UUID(match.ticket_id),
            evidence=match.evidence.as_dict(),
        )
        Case.objects.filter(pk=case.pk).update(updated_at=timezone.now())
        return CaseAssignment(case, CaseJoin.REPEAT, match, earlier_tickets(case, document))


def _case_state(case: Case) -> dict[str, Any]:
    """What the audit log records of a case: its tickets."""
    tickets = CaseTicket.objects.filter(case=case).order_by("document__created_at").values_list("document_id")
    return {"case": str(case.pk), "tickets": [str(t) for (t,) in tickets]}


def case_merge(*, organisation: Organisation, target: Case, sources: Sequence[Case], user: Any) -> Case:
    """Move every ticket of `sources` into `target` (the sources keep their ids, pointing to the target);
    audited. Raises CaseError for a case merged into itself or one of another organisation."""
    if not sources:
        raise CaseError("no_cases", "Name at least one case to merge into this one.", 400)
    if any(case.organisation_id != organisation.pk for case in [target, *sources]):
        raise CaseError("not_found", "No such case.", 404)
    if any(case.pk == target.pk for case in sources):
        raise CaseError("same_case", "A case cannot be merged into itself.")
    with transaction.atomic():
        locked = list(Case.objects.select_for_update().filter(pk__in=[target.pk, *[c.pk for c in sources]]))
        if any(case.merged_into_id is not None for case in locked):
            raise CaseError("already_merged", "One of these cases has been merged into another already.")
        before = {"target": _case_state(target), "sources": [_case_state(c) for c in sources]}
        now = timezone.now()
        CaseTicket.objects.filter(case__in=sources).update(case=target, joined_by=CaseJoin.REVIEWER, joined_at=now)
        Case.objects.filter(pk__in=[c.pk for c in sources]).update(merged_into=target, updated_at=now)
        Case.objects.filter(pk=target.pk).update(updated_at=now)
        target.refresh_from_db()
        audit_record(
            organisation=organisation, action="case.merge", obj=target, user=user, before=before,
            after=_case_state(target),
        )  # fmt: skip
    return target


def case_split(*, organisation: Organisation, case: Case, document_ids: Sequence[Any], user: Any) -> Case:
    """Move these tickets of `case` into a new case of their own; audited. Raises CaseError for a ticket not in
    the case, or for taking every ticket out (nothing would be split)."""
    wanted = {str(d) for d in document_ids}
    if case.organisation_id != organisation.pk:
        raise CaseError("not_found", "No such case.", 404)
    if not wanted:
        raise CaseError("no_tickets", "Name the tickets to split off.", 400)
    with transaction.atomic():
        Case.objects.select_for_update().filter(pk=case.pk).first()
        members = {str(d) for d in CaseTicket.objects.filter(case=case).values_list("document_id", flat=True)}
        if not wanted <= members:
            raise CaseError("not_in_case", "Some of these tickets are not in this case.")
        if wanted == members:
            raise CaseError("whole_case", "Splitting off every ticket leaves the case as it is.")
        before = _case_state(case)
        now = timezone.now()
        new = Case.objects.create(organisation=organisation, created_at=now, updated_at=now)
        CaseTicket.objects.filter(case=case, document_id__in=wanted).update(
            case=new, joined_by=CaseJoin.REVIEWER, joined_at=now
        )
        Case.objects.filter(pk=case.pk).update(updated_at=now)
        audit_record(
            organisation=organisation, action="case.split", obj=case, user=user, before=before,
            after={"case": _case_state(case), "new_case": _case_state(new)},
        )  # fmt: skip
    return new


def stored_findings_enabled(document: Document) -> bool:
    """Whether the look-up can run: the document is stored (a local analysis has no history to compare with)."""
    return document.organisation_id is not None and Document.objects.filter(pk=document.pk).exists()


def ticket_case_findings(document: Document, text: str) -> list[Finding]:
    """The rules phase's repeat look-up for a stored ticket: its case finding (none for a local analysis)."""
    if not stored_findings_enabled(document):
        return []
    assignment = ticket_case_assign(document=document, text=text)
    return [
        case_finding(
            str(assignment.case.pk), assignment.joined_by, assignment.match, assignment.earlier,
            settings.DOCGATE_REPEAT_THRESHOLD,
        )
    ]  # fmt: skip
