"""Repeat cases in the database: signatures stored and looked up by band key, a repeat ticket joining the earlier
ticket's case through the pipeline, never across places or organisations, nor outside the window."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from contracts.hotline.cases import candidate_ids, ticket_case_assign
from contracts.hotline.models import CaseJoin, CaseTicket, TicketBand, TicketSignature
from contracts.intake.submission import Submission, document_submit
from contracts.models import Document
from contracts.pipeline import job_run
from rules.tickets.repeats import BANDS, ticket_signature

pytestmark = pytest.mark.django_db

FIRST = "A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请环保部门尽快处理，谢谢。"
AGAIN = (
    "再次反映：A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨三点,油烟和噪音严重扰民,请环保部门尽快处理。至今未解决！"
)
ELSEWHERE = "A市A7区阳光花园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请环保部门尽快处理，谢谢。"


def ticket(organisation: Any, text: str, **metadata: Any) -> Document:
    submission = Submission(kind="ticket", source="api", text=text, metadata=metadata)
    return document_submit(organisation=organisation, submission=submission).document


def run(document: Document) -> None:
    job = document.latest_job()
    assert job is not None
    job_run(job.pk, "w")


def case_finding(document: Document) -> dict[str, Any]:
    result = document.latest_result()
    assert result is not None
    found = [f for f in result.data["findings"] if f["kind"] == "repeat_case"]
    assert len(found) == 1, result.data["findings"]
    return found[0]


def test_pipeline_attaches_a_repeat_ticket_to_the_earlier_tickets_case(actors: Any) -> None:
    first = ticket(actors.acme, FIRST)
    run(first)
    again = ticket(actors.acme, AGAIN)
    run(again)

    opened, joined = case_finding(first), case_finding(again)
    assert opened["joined_by"] == CaseJoin.FIRST and opened["earlier_tickets"] == []
    assert joined["case_id"] == opened["case_id"] and joined["joined_by"] == CaseJoin.REPEAT
    assert joined["repeats"] == str(first.pk) and joined["label"] == "repeat"
    assert [t["document_id"] for t in joined["earlier_tickets"]] == [str(first.pk)]
    assert joined["similarity"]["shared_place"] and joined["similarity"]["score"] >= joined["similarity"]["threshold"]
    membership = CaseTicket.objects.get(document=again)
    assert str(membership.case_id) == opened["case_id"] and membership.repeats_id == first.pk


def test_same_complaint_about_another_place_opens_its_own_case(actors: Any) -> None:
    first = ticket(actors.acme, FIRST)
    ticket_case_assign(document=first, text=FIRST)
    elsewhere = ticket(actors.acme, ELSEWHERE)
    assignment = ticket_case_assign(document=elsewhere, text=ELSEWHERE)
    assert assignment.joined_by == CaseJoin.FIRST and assignment.match is None
    assert CaseTicket.objects.get(document=first).case_id != assignment.case.pk
    # The text alone would have matched: the band look-up finds it, the place keeps them apart.
    signature = ticket_signature(ELSEWHERE)
    assert first.pk in candidate_ids(actors.acme.pk, signature, until=elsewhere.created_at)


def test_another_organisations_ticket_is_never_a_candidate(actors: Any) -> None:
    theirs = ticket(actors.globex, FIRST)
    ticket_case_assign(document=theirs, text=FIRST)
    ours = ticket(actors.acme, AGAIN)
    assignment = ticket_case_assign(document=ours, text=AGAIN)
    assert assignment.joined_by == CaseJoin.FIRST
    assert candidate_ids(actors.acme.pk, ticket_signature(FIRST), until=timezone.now()) == [ours.pk]


def test_tickets_older_than_the_window_are_not_compared(actors: Any, settings: Any) -> None:
    settings.DOCGATE_REPEAT_WINDOW_DAYS = 30
    old = ticket(actors.acme, FIRST)
    Document.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))
    old.refresh_from_db()
    ticket_case_assign(document=old, text=FIRST)
    again = ticket(actors.acme, AGAIN)
    assert ticket_case_assign(document=again, text=AGAIN).joined_by == CaseJoin.FIRST
    settings.DOCGATE_REPEAT_WINDOW_DAYS = 40
    later = ticket(actors.acme, AGAIN + "盼回复。")
    assert ticket_case_assign(document=later, text=AGAIN + "盼回复。").match is not None


def test_signature_and_band_rows_are_stored_once_and_assignment_is_idempotent(actors: Any) -> None:
    first = ticket(actors.acme, FIRST, caller_reference="138-0000-1111")
    one = ticket_case_assign(document=first, text=FIRST)
    two = ticket_case_assign(document=first, text=FIRST)  # a redelivered rules phase
    assert one.case.pk == two.case.pk and CaseTicket.objects.filter(document=first).count() == 1
    assert TicketBand.objects.filter(document=first).count() == BANDS
    stored = TicketSignature.objects.get(document=first)
    assert stored.caller and "13800001111" not in stored.caller  # a digest, not the number
    again = ticket(actors.acme, AGAIN, caller_reference="13800001111")
    assignment = ticket_case_assign(document=again, text=AGAIN)
    assert assignment.match is not None and assignment.match.evidence.same_caller


def test_candidate_lookup_is_one_query_on_the_band_table(actors: Any) -> None:
    for n in range(5):
        document = ticket(actors.acme, f"{FIRST}第{n}次。")
        ticket_case_assign(document=document, text=document.text)
    with CaptureQueriesContext(connection) as queries:
        candidate_ids(actors.acme.pk, ticket_signature(AGAIN), until=timezone.now())
    assert len(queries.captured_queries) == 1
    assert "contracts_ticketband" in queries.captured_queries[0]["sql"].lower()


def test_local_analysis_of_an_unsaved_document_gets_no_case(actors: Any) -> None:
    from contracts.hotline.cases import ticket_case_findings
    from contracts.models import Organisation

    document = Document(organisation=Organisation(slug="local"), kind="ticket", text=FIRST)
    assert ticket_case_findings(document, FIRST) == []


def test_the_threshold_setting_defaults_to_the_measured_threshold() -> None:
    import os

    from django.conf import settings

    from rules.tickets.repeats import DEFAULT_THRESHOLD

    if "DOCGATE_REPEAT_THRESHOLD" not in os.environ:
        assert settings.DOCGATE_REPEAT_THRESHOLD == DEFAULT_THRESHOLD


def test_a_ticket_read_after_its_later_repeat_joins_that_repeats_case(actors: Any) -> None:
    earlier, later = ticket(actors.acme, FIRST), ticket(actors.acme, AGAIN)
    assert earlier.created_at < later.created_at
    opened = ticket_case_assign(document=later, text=AGAIN)  # the later call is read first (the letter is OCRed)
    joined = ticket_case_assign(document=earlier, text=FIRST)
    assert joined.case == opened.case and joined.match is not None and joined.match.ticket_id == str(later.pk)
    assert joined.earlier == []  # the case's earlier tickets are those received before this one


@pytest.mark.django_db(transaction=True)
def test_two_repeats_read_at_once_join_one_case(actors: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL (SQLite has one writer at a time)")
    import threading

    first, again = ticket(actors.acme, FIRST), ticket(actors.acme, AGAIN)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def assign(document: Document, text: str) -> None:
        try:
            barrier.wait()
            ticket_case_assign(document=document, text=text)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=assign, args=pair) for pair in ((first, FIRST), (again, AGAIN))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert CaseTicket.objects.get(document=first).case_id == CaseTicket.objects.get(document=again).case_id
