"""Webhook delivery to a real local receiver: signed POSTs, retries with a delivery log, one delivery per result."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone

from contracts.broker import WEBHOOK_DELIVER
from contracts.intake.submission import Submission, document_submit
from contracts.models import AuditEvent, DeliveryState, Result, Role, WebhookDelivery, WebhookEndpoint
from contracts.pipeline import job_run
from contracts.review.workflow import review_finding_decide, review_task_claim, review_task_finalize
from contracts.tasks import webhook_deliver_task
from contracts.webhooks.delivery import WebhookRetry, webhook_deliver, webhook_deliveries_due, webhook_event_final
from contracts.webhooks.endpoints import webhook_endpoint_configure
from contracts.webhooks.signing import webhook_secret_new
from tests.api.test_review_access import acme_member
from tests.api.test_review_workflow import needs_review_task, signed_in
from tests.files import pdf_bytes
from tests.unit.test_webhook_signing import readme_verify, with_tampered_signature

pytestmark = pytest.mark.django_db


@dataclass
class Receiver:
    """A local HTTP server that records each request and answers with the next status in `statuses`."""

    url: str
    statuses: list[int]
    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    delay_s: float = 0.0  # how long it takes before answering (a slow receiver)


@contextmanager
def local_receiver() -> Iterator[Receiver]:
    """Serve a recording receiver on 127.0.0.1 (a free port) in a thread for the duration of the block."""
    state = Receiver(url="", statuses=[])

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.requests.append((dict(self.headers.items()), body))
            time.sleep(state.delay_s)
            code = state.statuses.pop(0) if state.statuses else 200
            self.send_response(code)
            if code in (301, 302, 307):
                self.send_header("Location", "http://127.0.0.1:9/elsewhere")
            self.end_headers()
            self.wfile.write(b"ok" if code < 300 else b"receiver says no")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/docgate-hook"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with local_receiver() as state:
        yield state


@pytest.fixture
def acme_endpoint(actors: Any, receiver: Receiver, settings: Any) -> tuple[WebhookEndpoint, str]:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    endpoint, secret = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
    assert secret is not None
    return endpoint, secret


def reviewed_result(actors: Any) -> Result:
    """Rita corrects F2 and finalizes; returns result v2."""
    task = needs_review_task(actors)
    review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    review_finding_decide(
        task_id=task.pk,
        user=actors.rita,
        organisation=actors.acme,
        finding_id="F2",
        decision="correct",
        corrected={"department": "城管局"},
    )
    return review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)


def test_signed_webhook_of_a_reviewed_result_reaches_the_receiver_and_verifies(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    _, secret = acme_endpoint
    result = reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()

    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
    [(headers, body)] = receiver.requests
    assert readme_verify(secret, headers, body)
    assert headers["Content-Type"] == "application/json"
    assert headers["User-Agent"] == "DocGate-Webhook/1"
    assert headers["X-DocGate-Event"] == "result.final"
    assert headers["webhook-id"] == str(delivery.pk)
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 60
    event = json.loads(body)
    assert event["id"] == str(delivery.pk) and event["type"] == "result.final"
    assert event["organisation"] == "acme"
    assert event["job"]["state"] == "done"
    assert event["result"]["version"] == 2 == result.version
    corrected = next(f for f in event["result"]["data"]["findings"] if f["id"] == "F2")
    assert corrected["department"] == "城管局" and corrected["review"] == "corrected"
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.DELIVERED and delivery.attempts == 1 and delivery.last_status_code == 200

    assert not readme_verify(secret, with_tampered_signature(headers), body)
    assert not readme_verify(secret, headers, body.replace(b'"version":2', b'"version":3'))
    assert not readme_verify(webhook_secret_new(), headers, body)


def test_a_delivered_event_is_not_sent_again(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
    assert webhook_deliver_task.apply(args=[str(delivery.pk)]).get() == DeliveryState.DELIVERED
    assert len(receiver.requests) == 1


def test_receiver_errors_are_retried_with_backoff_and_logged(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    receiver.statuses = [500, 503]

    with pytest.raises(WebhookRetry) as retry:
        webhook_deliver(delivery_id=delivery.pk)
    assert retry.value.delay_s > 0
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.PENDING and delivery.attempts == 1
    assert delivery.last_status_code == 500 and "receiver says no" in delivery.last_error
    assert delivery.next_attempt_at is not None

    with mock.patch("contracts.webhooks.delivery.webhook_retry_delay_s", return_value=0):
        assert webhook_deliver_task.apply(args=[str(delivery.pk)]).get() == DeliveryState.DELIVERED
    delivery.refresh_from_db()
    assert delivery.attempts == 3 and delivery.last_status_code == 200 and delivery.delivered_at is not None
    assert len(receiver.requests) == 3
    assert len({headers["webhook-id"] for headers, _ in receiver.requests}) == 1
    assert all(readme_verify(acme_endpoint[1], headers, body) for headers, body in receiver.requests)


def test_delivery_gives_up_after_the_attempt_limit(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str], settings: Any
) -> None:
    settings.DOCGATE_WEBHOOK_MAX_ATTEMPTS = 3
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    receiver.statuses = [500] * 10
    with mock.patch("contracts.webhooks.delivery.webhook_retry_delay_s", return_value=0):
        assert webhook_deliver_task.apply(args=[str(delivery.pk)]).get() == DeliveryState.FAILED
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.FAILED and delivery.attempts == 3
    assert delivery.last_status_code == 500
    assert len(receiver.requests) == 3
    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.FAILED  # a failed delivery stays failed
    assert len(receiver.requests) == 3


def test_a_delivery_another_worker_is_sending_is_left_alone(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(locked_until=timezone.now() + timedelta(seconds=30))
    assert webhook_deliver(delivery_id=delivery.pk) == "busy"
    assert receiver.requests == []


def test_redirects_are_not_followed(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    receiver.statuses = [302]
    with pytest.raises(WebhookRetry):
        webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert delivery.last_status_code == 302 and len(receiver.requests) == 1


def test_the_same_final_result_never_yields_two_deliveries(
    actors: Any, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    result = reviewed_result(actors)
    again = webhook_event_final(result=result)
    once_more = webhook_event_final(result=result)
    assert again is not None and once_more is not None
    assert again.pk == once_more.pk == WebhookDelivery.objects.get().pk
    assert WebhookDelivery.objects.get().event_key == f"result:{result.pk}"


def test_no_endpoint_or_an_inactive_one_means_no_delivery(actors: Any) -> None:
    result = reviewed_result(actors)
    assert webhook_event_final(result=result) is None
    WebhookEndpoint.objects.create(
        organisation=actors.acme, url="https://93.184.216.34/", secret="s" * 32, active=False
    )
    assert webhook_event_final(result=result) is None
    assert not WebhookDelivery.objects.exists()


def test_a_target_that_now_resolves_to_an_internal_address_is_refused_at_delivery(
    actors: Any, receiver: Receiver, settings: Any
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    public = [(2, 1, 6, "", ("93.184.216.34", 443))]
    with mock.patch("contracts.webhooks.outbound.socket.getaddrinfo", return_value=public):
        webhook_endpoint_configure(organisation=actors.acme, user=None, url="https://hooks.example.com/docgate")
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    rebound = [(2, 1, 6, "", ("127.0.0.1", 443))]
    with mock.patch("contracts.webhooks.outbound.socket.getaddrinfo", return_value=rebound):
        assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.FAILED
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.FAILED
    assert "回环" in delivery.last_error  # "loopback", recorded by the worker in the default language
    assert receiver.requests == []


def test_sweeper_resends_pending_deliveries_whose_message_was_lost(
    actors: Any, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    from contracts.tasks import webhook_deliveries_sweep_task

    reviewed_result(actors)
    lost = WebhookDelivery.objects.get()
    long_ago = timezone.now() - timedelta(hours=1)
    WebhookDelivery.objects.filter(pk=lost.pk).update(created_at=long_ago)
    endpoint, _ = acme_endpoint
    others: list[tuple[str, dict[str, Any]]] = [
        ("delivered", {"state": DeliveryState.DELIVERED}),
        ("retry-not-due", {"next_attempt_at": timezone.now() + timedelta(minutes=5)}),
        ("being-sent", {"locked_until": timezone.now() + timedelta(seconds=20)}),
    ]
    for key, changes in others:
        WebhookDelivery.objects.create(
            endpoint=endpoint,
            organisation=actors.acme,
            event="result.final",
            event_key=key,
            payload={},
            created_at=long_ago,
            **changes,
        )
    with mock.patch("contracts.broker.current_app.send_task") as send:
        assert webhook_deliveries_sweep_task.apply().get() == 1
    send.assert_called_once_with(WEBHOOK_DELIVER, args=[str(lost.pk)])


def test_sweeper_grace_is_the_setting(actors: Any, acme_endpoint: tuple[WebhookEndpoint, str], settings: Any) -> None:
    """A delivery lost a minute ago waits under the default grace (600 s) and is resent under a 30 s one."""
    reviewed_result(actors)
    lost = WebhookDelivery.objects.get()
    WebhookDelivery.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(seconds=60))
    assert webhook_deliveries_due() == []
    settings.DOCGATE_WEBHOOK_SWEEP_GRACE_S = 30
    assert webhook_deliveries_due() == [str(lost.pk)]


def _failed_delivery(actors: Any, receiver: Receiver, settings: Any) -> WebhookDelivery:
    """A reviewed result whose delivery the receiver refused until DocGate gave up (one attempt allowed)."""
    settings.DOCGATE_WEBHOOK_MAX_ATTEMPTS = 1
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    receiver.statuses = [500]
    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.FAILED
    delivery.refresh_from_db()
    return delivery


def test_admin_redelivers_a_failed_delivery_and_the_receiver_gets_the_same_event_again(
    actors: Any,
    receiver: Receiver,
    acme_endpoint: tuple[WebhookEndpoint, str],
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, secret = acme_endpoint
    failed = _failed_delivery(actors, receiver, settings)
    assert failed.state == DeliveryState.FAILED and failed.last_status_code == 500
    ada = signed_in(acme_member(actors, "ada", Role.ADMIN))
    url = f"/api/v1/webhook/deliveries/{failed.pk}/redeliver/"

    with (
        mock.patch("contracts.broker.current_app.send_task") as send,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = ada.post(url)
    assert response.status_code == 202, response.json()
    assert response.json()["state"] == "pending" and response.json()["attempts"] == 0
    send.assert_called_once_with(WEBHOOK_DELIVER, args=[str(failed.pk)])
    event = AuditEvent.objects.get(action="webhook.redelivery_requested")
    assert event.before == {"state": "failed", "attempts": 1, "last_error": failed.last_error}
    assert event.actor_user is not None and event.actor_user.username == "ada"

    assert webhook_deliver(delivery_id=failed.pk) == DeliveryState.DELIVERED
    (_, first), (headers, again) = receiver.requests
    assert again == first and headers["webhook-id"] == str(failed.pk)
    assert readme_verify(secret, headers, again)

    twice = ada.post(url)  # delivered now: nothing to send again
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "delivery_not_failed"
    assert len(receiver.requests) == 2


def test_redelivery_is_refused_to_reviewers_outsiders_and_to_an_inactive_endpoint(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str], settings: Any
) -> None:
    failed = _failed_delivery(actors, receiver, settings)
    url = f"/api/v1/webhook/deliveries/{failed.pk}/redeliver/"
    assert signed_in(actors.rita).post(url).status_code == 403
    assert signed_in(actors.oscar).post(url).status_code in (403, 404)
    ada = signed_in(acme_member(actors, "ada", Role.ADMIN))
    missing = ada.post("/api/v1/webhook/deliveries/00000000-0000-0000-0000-000000000000/redeliver/")
    assert missing.status_code == 404
    endpoint, _ = acme_endpoint
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(active=False)
    inactive = ada.post(url)
    assert inactive.status_code == 409 and inactive.json()["error"]["code"] == "webhook_inactive"
    failed.refresh_from_db()
    assert failed.state == DeliveryState.FAILED and not AuditEvent.objects.filter(action__startswith="webhook.redel")


def test_a_document_that_cannot_be_read_in_the_worker_sends_a_job_failed_event(
    actors: Any, receiver: Receiver, acme_endpoint: tuple[WebhookEndpoint, str]
) -> None:
    outcome = document_submit(
        organisation=actors.acme,
        submission=Submission(kind="contract", source="api", data=pdf_bytes(None), reference="SCAN-7"),
    )
    job_run(outcome.job.pk, "webhook-test")
    delivery = WebhookDelivery.objects.get()
    assert delivery.event == "job.failed"
    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
    [(headers, body)] = receiver.requests
    assert readme_verify(acme_endpoint[1], headers, body)
    event = json.loads(body)
    assert event["type"] == "job.failed" and headers["X-DocGate-Event"] == "job.failed"
    assert event["document"] == {"id": str(outcome.document.pk), "kind": "contract", "reference": "SCAN-7"}
    assert event["job"]["state"] == "failed"
    assert event["job"]["error"]["code"] == "pdf_without_text" and event["job"]["error"]["stage"] == "extract"
    assert "trace" not in event["job"]["error"] and "result" not in event


@pytest.mark.django_db(transaction=True)
def test_a_slow_receiver_keeps_its_delivery_leased_so_no_second_worker_sends_it(
    actors: Any, acme_endpoint: tuple[WebhookEndpoint, str], receiver: Receiver, settings: Any
) -> None:
    """The receiver takes 2.5 s, longer than the 1 s lease: for its request the delivery is leased for the
    attempt's bound (DOCGATE_WEBHOOK_TIMEOUT_S and a margin), so another worker finds it busy instead of sending it
    a second time."""
    from django.db import connection

    settings.DOCGATE_WEBHOOK_LEASE_S = 1.0
    receiver.delay_s = 2.5
    delivery = WebhookDelivery.objects.create(
        endpoint=acme_endpoint[0], organisation=actors.acme, event="result.final", event_key="slow", payload={"a": 1}
    )
    outcome: list[str] = []

    def first_worker() -> None:
        try:
            outcome.append(webhook_deliver(delivery_id=delivery.pk))
        finally:
            connection.close()

    sending = threading.Thread(target=first_worker)
    sending.start()
    time.sleep(1.8)  # past the first lease: only its renewal keeps the delivery taken
    assert webhook_deliver(delivery_id=delivery.pk) == "busy"
    sending.join(timeout=30)
    assert outcome == [DeliveryState.DELIVERED]
    assert len(receiver.requests) == 1
