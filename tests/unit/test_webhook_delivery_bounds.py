"""A receiver cannot hold a worker: each attempt ends within DOCGATE_WEBHOOK_TIMEOUT_S whatever the receiver does
(answers byte by byte, forever, or sends an endless body), reads at most a few KiB of an answer, and deliveries
have a queue and a worker of their own, so a slow tenant's receiver delays no one's jobs.

The receivers here are raw sockets on loopback that misbehave on purpose.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.db import connection

from contracts.broker import WEBHOOK_DELIVER
from contracts.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from contracts.webhooks.delivery import WebhookRetry, webhook_deliver
from contracts.webhooks.endpoints import webhook_endpoint_configure

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024


@dataclass
class Misbehaving:
    """A receiver on loopback: `url`, and how many bytes of its answer it got out before the sender hung up."""

    url: str
    sent: int = 0


@contextmanager
def receiver(answer: Callable[[socket.socket, Misbehaving, threading.Event], None]) -> Iterator[Misbehaving]:
    """Accept connections on a free port; read each request's head, then let `answer` misbehave until the sender
    hangs up or the test ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    state = Misbehaving(url=f"http://127.0.0.1:{listener.getsockname()[1]}/hook")

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    conn.recv(64 * 1024)  # the request (small: headers and a JSON body)
                    answer(conn, state, stop)
                except OSError:
                    pass  # the sender hung up: what a bounded attempt does

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


def trickle_forever(conn: socket.socket, state: Misbehaving, stop: threading.Event) -> None:
    """A status line and then one header byte every 0.2 s, never done: each read gets a byte well within any
    per-read timeout."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    while not stop.is_set():
        conn.sendall(b"X")
        state.sent += 1
        time.sleep(0.2)


def endless_body(status: bytes) -> Callable[[socket.socket, Misbehaving, threading.Event], None]:
    """A complete head announcing 256 MiB, then zeros as fast as the socket takes them."""

    def answer(conn: socket.socket, state: Misbehaving, stop: threading.Event) -> None:
        conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Length: " + str(256 * MiB).encode() + b"\r\n\r\n")
        chunk = b"0" * (64 * 1024)
        while not stop.is_set() and state.sent < 256 * MiB:
            conn.sendall(chunk)
            state.sent += len(chunk)

    return answer


def _pending_delivery(actors: Any, url: str) -> WebhookDelivery:
    webhook_endpoint_configure(organisation=actors.acme, user=None, url=url)
    endpoint = WebhookEndpoint.objects.get(organisation=actors.acme)
    return WebhookDelivery.objects.create(
        endpoint=endpoint, organisation=actors.acme, event="result.final", event_key="bounds", payload={"a": 1}
    )


def _attempt(delivery: WebhookDelivery, *, within_s: float) -> tuple[str | BaseException, float]:
    """Run one delivery attempt as a worker would (its own thread and connection); fail the test when it is still
    running after `within_s` seconds."""
    outcome: list[str | BaseException] = []

    def worker() -> None:
        try:
            outcome.append(webhook_deliver(delivery_id=delivery.pk))
        except BaseException as exc:  # handed to the test
            outcome.append(exc)
        finally:
            connection.close()

    started = time.monotonic()
    thread = threading.Thread(target=worker, daemon=True)
    thread.start()
    thread.join(timeout=within_s)
    elapsed = time.monotonic() - started
    assert not thread.is_alive(), f"the attempt still holds the worker after {elapsed:.1f} s"
    return outcome[0], elapsed


@pytest.fixture
def bounded(settings: Any) -> Any:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True  # the receivers are on loopback
    settings.DOCGATE_WEBHOOK_TIMEOUT_S = 2.0
    return settings


def test_a_receiver_that_trickles_its_answer_forever_loses_the_attempt_at_the_deadline(
    actors: Any, bounded: Any
) -> None:
    with receiver(trickle_forever) as slow:
        delivery = _pending_delivery(actors, slow.url)
        outcome, elapsed = _attempt(delivery, within_s=15)
    assert isinstance(outcome, WebhookRetry), outcome
    assert 1.5 <= elapsed < 5, elapsed
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.PENDING and delivery.attempts == 1 and delivery.next_attempt_at
    assert "2 s" in delivery.last_error and "DOCGATE_WEBHOOK_TIMEOUT_S" in delivery.last_error
    assert delivery.locked_until is None  # free for the retry


def test_the_last_attempt_against_a_trickling_receiver_fails_the_delivery(actors: Any, bounded: Any) -> None:
    bounded.DOCGATE_WEBHOOK_MAX_ATTEMPTS = 1
    with receiver(trickle_forever) as slow:
        delivery = _pending_delivery(actors, slow.url)
        outcome, _elapsed = _attempt(delivery, within_s=15)
    assert outcome == DeliveryState.FAILED
    delivery.refresh_from_db()
    assert delivery.state == DeliveryState.FAILED and "DOCGATE_WEBHOOK_TIMEOUT_S" in delivery.last_error


def test_an_endless_error_body_is_cut_after_a_few_kib_and_retried(actors: Any, bounded: Any) -> None:
    with receiver(endless_body(b"500 Internal Server Error")) as huge:
        delivery = _pending_delivery(actors, huge.url)
        outcome, elapsed = _attempt(delivery, within_s=15)
        sent = huge.sent
    assert isinstance(outcome, WebhookRetry), outcome
    assert elapsed < 2, elapsed  # nothing waits for the rest of it
    assert sent < 32 * MiB, sent  # what the socket buffers took, not the 256 MiB announced
    delivery.refresh_from_db()
    assert delivery.last_status_code == 500 and delivery.last_error.startswith("HTTP 500: 000")
    assert len(delivery.last_error) < 400


def test_a_success_with_an_endless_body_is_delivered_without_reading_it(actors: Any, bounded: Any) -> None:
    with receiver(endless_body(b"200 OK")) as huge:
        delivery = _pending_delivery(actors, huge.url)
        outcome, elapsed = _attempt(delivery, within_s=15)
        sent = huge.sent
    assert outcome == DeliveryState.DELIVERED
    assert elapsed < 2 and sent < 32 * MiB, (elapsed, sent)


def test_deliveries_have_their_own_queue_and_worker(settings: Any) -> None:
    """Nothing that runs jobs consumes `webhooks`, and something always does: runstack's and compose's
    worker-webhooks (and the all-queues worker the tests start)."""
    from contracts.management.commands.runstack import Command
    from contracts.operations.processes import ALL_QUEUES

    assert settings.CELERY_TASK_ROUTES[WEBHOOK_DELIVER] == {"queue": "webhooks"}
    assert "webhooks" in ALL_QUEUES
    settings.LLM_ENABLED = False  # no local model server in the command list
    commands = Command()._commands("127.0.0.1:0", 1)
    queues = {name: cmd[cmd.index("--queues") + 1] for name, cmd in commands.items() if "--queues" in cmd}
    assert [name for name, queue in queues.items() if "webhooks" in queue.split(",")] == ["worker-webhooks"]
    assert queues["worker-webhooks"] == "webhooks"
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    compose = {
        name: service["command"][service["command"].index("--queues") + 1]
        for name, service in services.items()
        if isinstance(service.get("command"), list) and "--queues" in service["command"]
    }
    assert [name for name, queue in compose.items() if "webhooks" in queue.split(",")] == ["worker-webhooks"]
    assert compose["worker-webhooks"] == "webhooks"
