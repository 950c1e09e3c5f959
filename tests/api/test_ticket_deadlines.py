"""A ticket's time limit, end to end with frozen time: received_at from the platform, due_at by tier and working
days, beat marking due soon and overdue exactly once each, raising review priority and sending signed webhooks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from config.celery import app
from contracts.hotline.deadlines.escalation import deadlines_escalate
from contracts.hotline.deadlines.tasks import ticket_deadlines_escalate_task
from contracts.models import (
    AuditEvent,
    DeliveryState,
    ReviewTask,
    ServiceLevel,
    TicketDeadline,
    WebhookDelivery,
)
from contracts.review.workflow import (
    review_finding_decide,
    review_task_claim,
    review_task_finalize,
    review_task_open,
)
from contracts.webhooks.delivery import webhook_deliver
from contracts.webhooks.endpoints import webhook_endpoint_configure
from tests.api.deadline_helpers import GAS_LEAK, NO_WATER, STREETLIGHT, ticket_submitted
from tests.api.test_review_workflow import signed_in
from tests.unit.test_webhook_delivery import Receiver, local_receiver
from tests.unit.test_webhook_signing import readme_verify, with_tampered_signature

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
FRIDAY_10 = datetime(2026, 12, 4, 10, 0, tzinfo=SHANGHAI)  # + 7 working days: Tuesday 15 December 10:00


def due_times(deadline: TicketDeadline) -> tuple[datetime, datetime]:
    """When the ticket counts as due soon, and when it is due (both set once its result is stored)."""
    assert deadline.due_soon_at is not None and deadline.due_at is not None
    return deadline.due_soon_at, deadline.due_at


def frozen(moment: datetime) -> Any:
    return time_machine.travel(moment, tick=False)


@pytest.fixture
def hook(actors: Any, settings: Any) -> Iterator[tuple[Receiver, str]]:
    """Acme's webhook endpoint: a recording receiver on loopback, and the endpoint's signing secret."""
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    with local_receiver() as receiver:
        _, secret = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
        assert secret is not None
        yield receiver, secret


@pytest.fixture
def in_review(settings: Any) -> None:
    """Every ticket's category counts as doubtful, so that each one waits in the review queue."""
    settings.DOCGATE_MIN_CONFIDENCE = 1.01


def test_received_at_from_the_platform_starts_the_clock_and_working_days_skip_the_weekend(acme_api: Any) -> None:
    with frozen(FRIDAY_10 + timedelta(minutes=30)):
        document = ticket_submitted(acme_api, received_at="2026-12-04T10:00:00+08:00")
        shown = acme_api.get(f"/api/v1/documents/{document.pk}/").json()["deadline"]
    assert shown["received_at"] == "2026-12-04T02:00:00+00:00"
    assert shown["tier"] == "general" and shown["limit"] == {"value": 7, "unit": "working_days"}
    assert datetime.fromisoformat(shown["due_at"]) == datetime(2026, 12, 15, 10, 0, tzinfo=SHANGHAI)
    assert shown["state"] == "on_time" and shown["progress"]["status"] == "received"
    listed = acme_api.get("/api/v1/documents/").json()["results"][0]["deadline"]
    assert listed["due_at"] == shown["due_at"]


def test_without_received_at_the_upload_time_starts_the_clock(acme_api: Any) -> None:
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, NO_WATER)
    deadline = TicketDeadline.objects.get(document=document)
    assert deadline.received_at == document.created_at == FRIDAY_10
    assert deadline.tier == "utilities" and deadline.due_at == FRIDAY_10 + timedelta(hours=24)


def test_a_holiday_and_a_make_up_working_day_are_honoured(acme_api: Any) -> None:
    # 中秋 25-27 September and 国庆 1-7 October are off; Saturday 10 October is a make-up working day.
    with frozen(datetime(2026, 9, 24, 10, 5, tzinfo=SHANGHAI)):
        document = ticket_submitted(acme_api, received_at="2026-09-24T10:00:00+08:00")
    assert TicketDeadline.objects.get(document=document).due_at == datetime(2026, 10, 12, 10, 0, tzinfo=SHANGHAI)


def test_an_organisation_sets_its_own_limit_for_a_tier(acme_api: Any, actors: Any) -> None:
    ServiceLevel.objects.create(organisation=actors.acme, tier="general", limit=3, unit="working_days")
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, received_at=FRIDAY_10.isoformat())
    deadline = TicketDeadline.objects.get(document=document)
    assert (deadline.limit, deadline.due_at) == (3, datetime(2026, 12, 9, 10, 0, tzinfo=SHANGHAI))


def test_a_contract_has_no_deadline(acme_api: Any) -> None:
    answer = acme_api.post("/api/v1/documents/", {"kind": "contract", "text": "第一条 本合同自签订之日起生效。"})
    assert answer.status_code == 201 and answer.json()["document"]["deadline"] is None
    assert not TicketDeadline.objects.exists()


def test_due_soon_is_marked_once_raises_priority_and_sends_a_verified_webhook(
    acme_api: Any, in_review: None, hook: tuple[Receiver, str]
) -> None:
    receiver, secret = hook
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, received_at=FRIDAY_10.isoformat())
    due_soon_at, _ = due_times(TicketDeadline.objects.get(document=document))
    task = ReviewTask.objects.get(document=document)
    assert task.priority == 50  # low_confidence
    WebhookDelivery.objects.all().delete()  # the result's own events

    with frozen(due_soon_at - timedelta(minutes=1)):
        assert deadlines_escalate() == {"overdue": 0, "due_soon": 0}
    with frozen(due_soon_at + timedelta(minutes=1)):
        assert deadlines_escalate() == {"overdue": 0, "due_soon": 1}
        assert deadlines_escalate() == {"overdue": 0, "due_soon": 0}  # run twice: nothing new
        assert ticket_deadlines_escalate_task() == {"overdue": 0, "due_soon": 0}
        [delivery] = WebhookDelivery.objects.all()
        assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
        [(headers, body)] = receiver.requests
        assert readme_verify(secret, headers, body)
        assert not readme_verify(secret, with_tampered_signature(headers), body)

    event = json.loads(body)
    assert event["type"] == "ticket.due_soon" and headers["X-DocGate-Event"] == "ticket.due_soon"
    assert event["document"] == {"id": str(document.pk), "kind": "ticket", "reference": ""}
    assert event["deadline"]["state"] == "due_soon" and event["deadline"]["tier"] == "general"
    task.refresh_from_db()
    assert task.priority == 95
    assert AuditEvent.objects.filter(action="ticket.due_soon", object_id=str(document.pk)).count() == 1


def test_overdue_is_marked_once_and_the_overdue_ticket_heads_the_review_queue(
    acme_api: Any, in_review: None, hook: tuple[Receiver, str], actors: Any
) -> None:
    receiver, secret = hook
    with frozen(FRIDAY_10):
        late = ticket_submitted(acme_api, received_at=FRIDAY_10.isoformat())
    deadline = TicketDeadline.objects.get(document=late)
    _, due_at = due_times(deadline)
    with frozen(due_at - timedelta(hours=1)):
        later = ticket_submitted(acme_api, NO_WATER)  # due in a day
    WebhookDelivery.objects.all().delete()

    with frozen(due_at + timedelta(minutes=1)):  # beat missed the due-soon window: overdue only
        assert deadlines_escalate() == {"overdue": 1, "due_soon": 0}
        assert deadlines_escalate() == {"overdue": 0, "due_soon": 0}
        [delivery] = WebhookDelivery.objects.all()
        assert delivery.event == "ticket.overdue"
        assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
        [(headers, body)] = receiver.requests
        assert readme_verify(secret, headers, body)
        queue = signed_in(actors.rita).get("/api/v1/reviews/").json()["results"]
    assert json.loads(body)["deadline"]["state"] == "overdue"
    deadline.refresh_from_db()
    assert deadline.state == "overdue" and deadline.due_soon_marked_at is None and deadline.overdue_marked_at
    assert [item["document"]["id"] for item in queue] == [str(late.pk), str(later.pk)]
    assert [item["priority"] for item in queue] == [110, 50]
    assert TicketDeadline.objects.get(document=later).state == "on_time"


def test_due_soon_then_overdue_each_once(acme_api: Any) -> None:
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, GAS_LEAK)
    deadline = TicketDeadline.objects.get(document=document)
    assert deadline.tier == "emergency" and deadline.due_at == FRIDAY_10 + timedelta(hours=2)
    marks = []
    for minutes in (90, 97, 100, 119, 121, 180):
        with frozen(FRIDAY_10 + timedelta(minutes=minutes)):
            marks.append(deadlines_escalate())
    assert marks == [
        {"overdue": 0, "due_soon": 0},
        {"overdue": 0, "due_soon": 1},  # 96 minutes in: 20 % of 2 hours left
        {"overdue": 0, "due_soon": 0},
        {"overdue": 0, "due_soon": 0},
        {"overdue": 1, "due_soon": 0},
        {"overdue": 0, "due_soon": 0},
    ]
    actions = AuditEvent.objects.filter(object_id=str(document.pk), action__startswith="ticket.")
    assert sorted(actions.values_list("action", flat=True)) == ["ticket.due_soon", "ticket.overdue"]


def test_answered_stops_the_clock(acme_api: Any) -> None:
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, GAS_LEAK)
    with frozen(FRIDAY_10 + timedelta(minutes=30)):
        answer = acme_api.post(f"/api/v1/documents/{document.pk}/progress/", {"status": "answered"}, format="json")
        assert answer.status_code == 200, answer.json()
        assert answer.json()["clock_stopped_at"] is not None
    for hours in (1.7, 3, 48):
        with frozen(FRIDAY_10 + timedelta(hours=hours)):
            assert deadlines_escalate() == {"overdue": 0, "due_soon": 0}
    assert TicketDeadline.objects.get(document=document).state == "on_time"


def test_the_beat_schedule_sends_the_escalation_task_and_workers_import_it(settings: Any) -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["escalate-ticket-deadlines"]
    assert entry["task"] == ticket_deadlines_escalate_task.name
    assert ticket_deadlines_escalate_task.__module__ in settings.CELERY_IMPORTS
    assert entry["schedule"] == float(settings.DOCGATE_DEADLINE_SWEEP_INTERVAL_S)
    app.loader.import_default_modules()  # what a worker does at start
    assert entry["task"] in app.tasks


def test_a_reviewer_correcting_the_category_moves_the_due_time(acme_api: Any, in_review: None, actors: Any) -> None:
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, STREETLIGHT)
        task = ReviewTask.objects.get(document=document)
        result = document.latest_result()
        assert result is not None
        finding = next(f for f in result.data["findings"] if f["kind"] == "ticket_category")
        review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
        review_finding_decide(
            task_id=task.pk,
            user=actors.rita,
            organisation=actors.acme,
            finding_id=finding["id"],
            decision="correct",
            corrected={"level3": "自来水供应"},
        )
        review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    deadline = TicketDeadline.objects.get(document=document)
    assert deadline.tier == "utilities" and deadline.due_at == FRIDAY_10 + timedelta(hours=24)


def test_a_review_task_opened_after_the_mark_gets_the_marks_priority(acme_api: Any) -> None:
    with frozen(FRIDAY_10):
        document = ticket_submitted(acme_api, GAS_LEAK)
    with frozen(FRIDAY_10 + timedelta(hours=3)):
        assert deadlines_escalate() == {"overdue": 1, "due_soon": 0}
        # A reviewer's correction or a model re-run later opens a task for the ticket, with its reasons' priority.
        job = document.latest_job()
        assert job is not None
        task = review_task_open(job=job, reasons=["qa_sample"])
        assert task.priority == 10
        deadlines_escalate()
    task.refresh_from_db()
    assert task.priority == 110


@pytest.mark.parametrize(
    ("received", "due", "status"),
    [
        # Mon 28 Dec 2026 + 7 working days: 1 January 2027 is a statutory holiday (2027 is statutory only until the
        # State Council's notice is loaded), so Thursday 7 January.
        (
            datetime(2026, 12, 28, 10, 0, tzinfo=SHANGHAI),
            datetime(2027, 1, 7, 10, 0, tzinfo=SHANGHAI),
            "statutory_only",
        ),
        # Tue 28 Dec 2027 + 7 working days: 2028 is not listed (weekends only): Thursday 6 January.
        (datetime(2027, 12, 28, 10, 0, tzinfo=SHANGHAI), datetime(2028, 1, 6, 10, 0, tzinfo=SHANGHAI), "missing"),
    ],
    ids=["statutory-only-year", "unlisted-year"],
)
def test_a_due_time_in_a_year_the_calendar_does_not_hold_officially_says_so(
    acme_api: Any, caplog: pytest.LogCaptureFixture, received: datetime, due: datetime, status: str
) -> None:
    with frozen(received):
        document = ticket_submitted(acme_api)
    assert TicketDeadline.objects.get(document=document).due_at == due
    assert f"holds as {status}" in caplog.text and str(due.year) in caplog.text
