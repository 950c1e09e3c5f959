"""Faults under load: 200 submissions from 20 clients to gunicorn while a Celery worker is SIGKILLed (and replaced,
as a supervisor would), a gunicorn worker is SIGKILLed mid-request and Redis restarts with its data lost; nothing is
lost or doubled and every job ends.

Everything is real: gunicorn (2 workers), two Celery workers, beat, PostgreSQL, a Redis of the test's own (so that
restarting it disturbs nobody else's tests) and an HTTP receiver for the webhooks. The worker killed is a whole
worker (its main process and its pool, `killpg`) while one of its pool processes runs a job: the way an OOM kill of
the container or a lost machine ends a worker, with nobody left to hand its messages back. That leaves the job
`running` under a lease that nobody renews, and the worker's prefetched messages unacknowledged in Redis, until the
restart loses them along with everything queued: the job lease, the jobs sweeper and the webhook deliveries sweeper
(beat, with short intervals) must bring every one of them back. The client whose request died with the gunicorn
worker sends it again with the same Idempotency-Key: one document either way.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contracts.models import AuditEvent, DeliveryState, Document, Job, JobState, Result, WebhookDelivery
from contracts.webhooks.delivery import EVENT_RESULT_FINAL
from contracts.webhooks.endpoints import webhook_endpoint_configure
from tests.faults.helpers import (
    PrivateRedis,
    celery_beat,
    child_pids,
    fault_worker_env,
    log_tail,
    redis_private,
    redis_restart_losing_data,
    response_hold,
)
from tests.load.run_load import child, free_port, gunicorn_command, server_env, submit_all, wait_ready
from tests.unit.test_webhook_delivery import Receiver, local_receiver
from tests.workers import celery_worker, wait_until
from tests.workers import test_database_url as database_url  # renamed: pytest would collect it

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

COUNT, CLIENTS = 200, 20
KILL_AT, WEB_KILL_AT, REDIS_AT = 60, 90, 120  # accepted submissions before each fault
FINAL = {JobState.DONE, JobState.NEEDS_REVIEW, JobState.FAILED}
SWEEP_LINE = re.compile(r"sweeper re-enqueued \d+ job\(s\): SweepReport\(requeued_running=(\d+), resent_queued=(\d+)")
WEBHOOK_SWEEP_LINE = re.compile(r"webhook_deliveries_sweep_task\[[^\]]+\] succeeded in [\d.]+s: (\d+)")


def load_env(folder: Path, broker: PrivateRedis) -> dict[str, str]:
    """gunicorn's, the workers' and beat's environment: the test database, the test's Redis, short leases and
    sweeps, and a 0.3 s pause in every job's first attempt (so that a backlog builds and a kill lands mid-job)."""
    from django.conf import settings

    return {
        **server_env(database_url(), broker.url, Path(settings.DATA_DIR)),
        **fault_worker_env(
            folder,
            pause_s=0.3,
            DOCGATE_JOB_LEASE_S="6",
            DOCGATE_JOB_QUEUED_DEADLINE_S="10",
            DOCGATE_SWEEP_INTERVAL_S="2",
            DOCGATE_WEBHOOK_LEASE_S="5",
            DOCGATE_WEBHOOK_SWEEP_INTERVAL_S="2",
            DOCGATE_WEBHOOK_SWEEP_GRACE_S="10",
        ),
    }


@dataclass
class Faults:
    """The faults, injected from a thread as the submissions pass KILL_AT and REDIS_AT, and what they hit."""

    env: dict[str, str]
    folder: Path
    broker: PrivateRedis
    victim: subprocess.Popen[bytes]
    stack: ExitStack
    accepted: int = 0
    log: dict[str, Any] = field(default_factory=dict)
    error: BaseException | None = None

    def count(self, accepted: int) -> None:
        self.accepted = accepted

    def run(self, started: float) -> None:
        from django.db import connection

        try:
            self._inject(started)
        except BaseException as exc:  # re-raised by the test's thread
            self.error = exc
        finally:
            connection.close()  # this thread's own connection, before the test database is flushed

    def _inject(self, started: float) -> None:
        self._after(KILL_AT, started, "worker_killed")
        self._worker_kill()
        self._after(WEB_KILL_AT, started, "web_worker_killed")
        self._web_worker_kill()
        self._after(REDIS_AT, started, "redis_restarted")
        self.log["messages_in_redis_before_restart"] = redis_messages(self.broker.url)
        redis_restart_losing_data(self.broker.url, self.broker.start)

    def _after(self, accepted: int, started: float, fault: str) -> None:
        """Wait until `accepted` submissions are in; note when (seconds into the run, submissions in)."""
        assert wait_until(lambda: self.accepted >= accepted, timeout_s=90, interval_s=0.02), fault
        self.log[fault] = {"at_s": round(time.monotonic() - started, 2), "accepted": self.accepted}

    def _worker_kill(self) -> None:
        """SIGKILL worker A (main process and pool) while both its pool processes run jobs; start its replacement a
        second later. Both busy with jobs means neither is sending a webhook: a delivery cut off mid-request would be
        sent again under the same webhook-id (at least once, for receivers to dedupe), which this test would count
        as a second arrival."""
        running = Job.objects.filter(state=JobState.RUNNING)
        names = lambda: {f"{socket.gethostname()}:{pid}" for pid in child_pids(self.victim.pid)}  # noqa: E731
        both = lambda: running.filter(claimed_by__in=names()).count() == 2  # noqa: E731
        assert wait_until(both, timeout_s=20, interval_s=0.02)
        self.log["jobs_running_on_killed_worker"] = running.filter(claimed_by__in=names()).count()
        os.killpg(self.victim.pid, signal.SIGKILL)
        self.victim.wait(timeout=10)
        time.sleep(1.0)  # the supervisor notices and starts a replacement
        self.stack.enter_context(
            celery_worker(extra_env=self.env, log_path=self.folder / "worker-a2.log", concurrency=2)
        )

    def _web_worker_kill(self) -> None:
        """SIGKILL a gunicorn worker in the middle of a request, after its submission was stored and before the
        answer went out (the hold of `HoldResponseMiddleware`): its client sees the connection drop and sends the
        submission again with the same Idempotency-Key, which must answer with the stored document. gunicorn's
        arbiter starts another worker."""
        hold = response_hold(self.folder)
        hold.touch()
        held = lambda: next(hold.parent.glob(f"{hold.name}.*"), None)  # noqa: E731
        assert wait_until(lambda: held() is not None, timeout_s=20, interval_s=0.005)
        holder = held()
        assert holder is not None
        os.kill(int(holder.suffix[1:]), signal.SIGKILL)


def redis_messages(url: str) -> dict[str, int]:
    """Messages queued and held unacknowledged by workers (prefetched, or waiting for a retry's countdown)."""
    import redis

    client: Any = redis.Redis.from_url(url)
    return {"queued": client.llen("celery") + client.llen("llm"), "unacked": client.hlen("unacked")}


def worker_ready(log: Path) -> Callable[[], bool]:
    return lambda: log.exists() and " ready." in log.read_text(errors="replace")


def logs_text(folder: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in sorted(folder.glob("worker-*.log")))


def receiver_ids(receiver: Receiver) -> Counter[str]:
    """How many requests the receiver got per webhook-id (a delivery's id, the same on each of its retries)."""
    lowered = ({key.lower(): value for key, value in headers.items()} for headers, _ in receiver.requests)
    return Counter(headers["webhook-id"] for headers in lowered)


def test_200_submissions_from_20_clients_survive_a_killed_worker_and_a_redis_restart_once_each(
    actors: Any, real_services: dict[str, str], settings: Any, tmp_path: Path
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True  # the receiver is on loopback
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with local_receiver() as receiver, redis_private(tmp_path) as broker, ExitStack() as stack:
        webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
        env = load_env(tmp_path, broker)
        stack.enter_context(child(gunicorn_command(port), env, tmp_path / "gunicorn.log"))
        victim = stack.enter_context(celery_worker(extra_env=env, log_path=tmp_path / "worker-a.log", concurrency=2))
        stack.enter_context(celery_worker(extra_env=env, log_path=tmp_path / "worker-b.log", concurrency=2))
        stack.enter_context(celery_beat(extra_env=env, folder=tmp_path))
        assert wait_ready(base_url, actors.acme_key), log_tail(tmp_path / "gunicorn.log")
        for name in ("worker-a.log", "worker-b.log"):
            assert wait_until(worker_ready(tmp_path / name), timeout_s=60), log_tail(tmp_path / name)
        faults = Faults(env=env, folder=tmp_path, broker=broker, victim=victim, stack=stack)
        started = time.monotonic()
        injector = threading.Thread(target=faults.run, args=(started,))
        injector.start()
        submitted = submit_all(
            base_url, actors.acme_key, COUNT, CLIENTS, attempts=5, pace_s=1.0, on_accepted=faults.count
        )
        submit_s = time.monotonic() - started
        injector.join(timeout=120)
        assert faults.error is None, f"{faults.error!r}\n{log_tail(tmp_path / 'worker-a.log')}"
        jobs = Job.objects.filter(document_id__in=submitted.ids)
        all_final = wait_until(lambda: jobs.exclude(state__in=FINAL).count() == 0, timeout_s=120, interval_s=0.5)
        final_s = time.monotonic() - started
        assert all_final, logs_text(tmp_path)[-6000:] + log_tail(tmp_path / "beat.log")
        done = jobs.filter(state=JobState.DONE).count()
        delivered = WebhookDelivery.objects.filter(event=EVENT_RESULT_FINAL, state=DeliveryState.DELIVERED)
        states = lambda: dict(Counter(WebhookDelivery.objects.values_list("state", flat=True)))  # noqa: E731
        assert wait_until(lambda: delivered.count() >= done, timeout_s=60, interval_s=0.5), f"{done} done, {states()}"
        time.sleep(3)  # anything sent twice would arrive now
        logs = logs_text(tmp_path)
    report = {
        "submissions": COUNT,
        "clients": CLIENTS,
        "statuses": {str(k): v for k, v in sorted(submitted.statuses.items())},
        "client_retries": submitted.retries,
        "client_replays": submitted.replayed,  # retries whose first request had been stored before it died
        "submit_s": round(submit_s, 1),
        "all_final_s": round(final_s, 1),
        **faults.log,
        "job_states": dict(Counter(jobs.values_list("state", flat=True))),
        "sweeper_requeued_running": sum(int(m[0]) for m in SWEEP_LINE.findall(logs)),
        "sweeper_resent_queued": sum(int(m[1]) for m in SWEEP_LINE.findall(logs)),
        "webhook_sweeper_resent": sum(int(n) for n in WEBHOOK_SWEEP_LINE.findall(logs)),
        "attempts": dict(Counter(jobs.values_list("attempts", flat=True))),
        "receiver_requests_per_delivery": dict(Counter(receiver_ids(receiver).values())),
    }
    print("faults under load:", json.dumps(report, ensure_ascii=False))
    assert_nothing_lost_or_doubled(submitted.accepted, receiver, report)


def assert_nothing_lost_or_doubled(accepted: dict[int, str], receiver: Receiver, report: dict[str, Any]) -> None:
    """Every submission one document, one job, one final result; every done job one result.final delivery that
    reached the receiver once; no job failed."""
    assert report["statuses"] == {"201": COUNT}, report
    assert len(set(accepted.values())) == COUNT
    documents = Document.objects.filter(organisation__slug="acme")
    assert set(map(str, documents.values_list("pk", flat=True))) == set(accepted.values())
    jobs = Job.objects.filter(document__in=documents)
    assert Counter(jobs.values_list("document_id", flat=True)) == Counter({d.pk: 1 for d in documents})
    assert set(jobs.values_list("state", flat=True)) <= {JobState.DONE, JobState.NEEDS_REVIEW}, report
    results = Result.objects.filter(document__in=documents)
    assert Counter(results.filter(final=True).values_list("job_id", flat=True)) == Counter({j.pk: 1 for j in jobs})
    assert results.count() == COUNT  # nothing provisional or doubled with the model off
    job_ids = [str(job.pk) for job in jobs]
    ends = AuditEvent.objects.filter(action__in=["job.done", "job.needs_review"], object_id__in=job_ids)
    assert Counter(ends.values_list("object_id", flat=True)) == Counter({str(j.pk): 1 for j in jobs})
    done = {str(pk) for pk in jobs.filter(state=JobState.DONE).values_list("pk", flat=True)}
    deliveries = WebhookDelivery.objects.filter(organisation__slug="acme")
    assert set(deliveries.values_list("event", flat=True)) <= {EVENT_RESULT_FINAL}  # no job.failed
    by_job = Counter(payload["job"]["id"] for payload in deliveries.values_list("payload", flat=True))
    assert by_job == Counter(dict.fromkeys(done, 1))
    assert set(deliveries.values_list("state", flat=True)) == {DeliveryState.DELIVERED}
    received = receiver_ids(receiver)
    assert set(received) == set(map(str, deliveries.values_list("pk", flat=True)))
    assert set(received.values()) == {1}, report
    assert report["sweeper_requeued_running"] >= 1  # the kill left a job running under a dead lease
    assert report["client_retries"] >= 1  # the web worker died under a request, which its client sent again
    assert report["client_replays"] >= 1  # ... after storing it: the retry got the stored document, not a second
    lost_in_redis = report["messages_in_redis_before_restart"]
    assert lost_in_redis["queued"] + lost_in_redis["unacked"] > 0  # the restart did lose messages
