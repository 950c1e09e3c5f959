"""The hotline platform reports a ticket's progress (dispatched, answered, closed, returned with its reason):
checked transitions, audited, clear 400 / 409 otherwise; and `received_at` on submission is checked."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from contracts.models import AuditEvent, Document, TicketDeadline
from tests.api.deadline_helpers import NO_WATER, STREETLIGHT, ticket_submitted

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 2, 9, 0, tzinfo=SHANGHAI)


def report(api: Any, document: Document, **body: Any) -> Any:
    return api.post(f"/api/v1/documents/{document.pk}/progress/", body, format="json")


@pytest.fixture
def ticket(acme_api: Any) -> Document:
    with time_machine.travel(NOW, tick=False):
        return ticket_submitted(acme_api, received_at="2026-12-02T08:45:00+08:00")


def test_a_ticket_goes_dispatched_returned_dispatched_answered_closed_and_each_step_is_audited(
    acme_api: Any, ticket: Document
) -> None:
    steps = [
        {"status": "dispatched", "department": "市城市管理局"},
        {"status": "returned", "reason": "不属于本单位职责，应由供电公司处理"},
        {"status": "dispatched", "department": "国网供电公司"},
        {"status": "answered", "note": "已修复"},
        {"status": "closed"},
    ]
    shown = []
    for step in steps:
        answer = report(acme_api, ticket, **step)
        assert answer.status_code == 200, answer.json()
        shown.append(answer.json()["progress"])
    assert [s["status"] for s in shown] == ["dispatched", "returned", "dispatched", "answered", "closed"]
    assert shown[1]["return_reason"] == "不属于本单位职责，应由供电公司处理" and shown[1]["department"] is None
    assert shown[2]["department"] == "国网供电公司" and shown[2]["return_reason"] is None

    events = list(AuditEvent.objects.filter(object_type="ticketdeadline", object_id=str(ticket.pk)).order_by("id"))
    assert [e.action for e in events] == [
        "ticket.dispatched",
        "ticket.returned",
        "ticket.dispatched",
        "ticket.answered",
        "ticket.closed",
    ]
    assert all(e.actor_api_key is not None for e in events)
    returned, answered = events[1], events[3]
    assert (returned.before or {})["department"] == "市城市管理局"
    assert (returned.after or {})["return_reason"] == "不属于本单位职责，应由供电公司处理"
    assert (answered.after or {})["note"] == "已修复"

    document = acme_api.get(f"/api/v1/documents/{ticket.pk}/").json()
    assert document["deadline"]["progress"]["status"] == "closed"
    assert document["deadline"]["clock_stopped_at"] is not None


@pytest.mark.parametrize(
    ("before", "step", "code"),
    [
        ([{"status": "answered"}, {"status": "closed"}], {"status": "answered"}, "invalid_transition"),
        (
            [{"status": "answered"}, {"status": "closed"}],
            {"status": "dispatched", "department": "甲"},
            "invalid_transition",
        ),
        ([], {"status": "closed"}, "invalid_transition"),
        ([], {"status": "returned", "reason": "不归我们管"}, "invalid_transition"),
        (
            [{"status": "dispatched", "department": "甲"}],
            {"status": "dispatched", "department": "乙"},
            "invalid_transition",
        ),
    ],
    ids=[
        "answered-after-closed",
        "dispatched-after-closed",
        "closed-before-answered",
        "returned-before-dispatch",
        "re-dispatch-without-return",
    ],
)
def test_steps_out_of_order_are_a_409_and_change_nothing(
    acme_api: Any, ticket: Document, before: list[dict[str, str]], step: dict[str, str], code: str
) -> None:
    for earlier in before:
        assert report(acme_api, ticket, **earlier).status_code == 200
    audited = AuditEvent.objects.count()
    state = TicketDeadline.objects.filter(pk=ticket.pk).values().get()
    answer = report(acme_api, ticket, **step)
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == code and "allowed" in answer.json()["error"]["message"]
    assert TicketDeadline.objects.filter(pk=ticket.pk).values().get() == state
    assert AuditEvent.objects.count() == audited


def test_the_same_report_again_is_a_harmless_retry(acme_api: Any, ticket: Document) -> None:
    first = report(acme_api, ticket, status="dispatched", department="市水务局")
    again = report(acme_api, ticket, status="dispatched", department="市水务局")
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    assert AuditEvent.objects.filter(action="ticket.dispatched").count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"status": "returned"}, "reason"),
        ({"status": "returned", "reason": "   "}, "reason"),
        ({"status": "dispatched"}, "department"),
        ({"status": "finished"}, "status"),
        ({}, "status"),
        ({"status": "answered", "at": "2026-12-02 09:00"}, "at"),
        ({"status": "answered", "at": "yesterday"}, "at"),
        ({"status": "answered", "at": "2027-01-01T00:00:00+08:00"}, "at"),
        ({"status": "answered", "reason": "x" * 2001}, "reason"),
    ],
    ids=[
        "return-without-reason",
        "blank-reason",
        "dispatch-without-department",
        "unknown-status",
        "no-status",
        "at-without-timezone",
        "at-not-a-time",
        "at-in-the-future",
        "reason-too-long",
    ],
)
def test_bad_reports_are_a_400_naming_the_field(
    acme_api: Any, ticket: Document, body: dict[str, str], field: str
) -> None:
    with time_machine.travel(NOW + timedelta(minutes=5), tick=False):
        answer = report(acme_api, ticket, **body)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid" and field in answer.json()["error"]["fields"]
    assert not AuditEvent.objects.filter(action__startswith="ticket.").exists()


def test_a_report_states_when_it_happened(acme_api: Any, ticket: Document) -> None:
    with time_machine.travel(NOW + timedelta(hours=2), tick=False):
        answer = report(acme_api, ticket, status="answered", at="2026-12-02T10:15:00+08:00")
    assert datetime.fromisoformat(answer.json()["clock_stopped_at"]) == datetime(2026, 12, 2, 10, 15, tzinfo=SHANGHAI)


def test_a_contract_takes_no_progress_and_another_organisation_sees_no_ticket(
    acme_api: Any, globex_api: Any, ticket: Document
) -> None:
    contract = acme_api.post("/api/v1/documents/", {"kind": "contract", "text": "第一条 本合同自签订之日起生效。"})
    answer = acme_api.post(f"/api/v1/documents/{contract.json()['document']['id']}/progress/", {"status": "answered"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_a_ticket"
    outsider = report(globex_api, ticket, status="answered")
    assert outsider.status_code == 404 and outsider.json()["error"]["code"] == "not_found"
    assert TicketDeadline.objects.get(pk=ticket.pk).progress == "received"


def test_progress_before_the_first_result_is_kept(acme_api: Any) -> None:
    queued = acme_api.post("/api/v1/documents/", {"kind": "ticket", "text": NO_WATER}, format="json").json()
    answer = acme_api.post(
        f"/api/v1/documents/{queued['document']['id']}/progress/",
        {"status": "dispatched", "department": "市水务局"},
        format="json",
    )
    assert answer.status_code == 200 and answer.json()["due_at"] is None
    assert answer.json()["progress"]["department"] == "市水务局"


@pytest.mark.parametrize(
    ("received_at", "says"),
    [
        ("2026-12-02T08:00:00", "timezone"),
        ("2026-12-02", "timezone"),
        ("next tuesday", "ISO 8601"),
        ("2026-12-02T09:10:00+08:00", "future"),  # ten minutes ahead: past the five-minute skew
        (1764637200, "ISO 8601"),
    ],
    ids=["no-timezone", "a-date-only", "not-a-time", "future", "a-number"],
)
def test_a_bad_received_at_is_a_clear_400(acme_api: Any, received_at: Any, says: str) -> None:
    with time_machine.travel(NOW, tick=False):
        answer = acme_api.post(
            "/api/v1/documents/", {"kind": "ticket", "text": STREETLIGHT, "received_at": received_at}, format="json"
        )
        inside = acme_api.post(
            "/api/v1/documents/",
            {"kind": "ticket", "text": STREETLIGHT, "metadata": {"received_at": received_at}},
            format="json",
        )
    for refused in (answer, inside):
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == "invalid" and "received_at" in error["fields"] and says in error["message"]
    assert not Document.objects.exists()


def test_a_received_at_within_the_clock_skew_is_accepted(acme_api: Any) -> None:
    with time_machine.travel(NOW, tick=False):
        document = ticket_submitted(acme_api, received_at="2026-12-02T01:03:00Z")
    assert TicketDeadline.objects.get(document=document).received_at == NOW + timedelta(minutes=3)
    assert document.metadata["received_at"] == "2026-12-02T01:03:00+00:00"
