"""Bounded load run: N distinct submissions from C concurrent clients against gunicorn (2 workers) + Celery.

Run: `DATABASE_URL=postgres://postgres@127.0.0.1:5432/docgate REDIS_URL=redis://127.0.0.1:6379/12 \
      python -m tests.load.run_load --count 500 --clients 20`
It creates its own database (`<name>_load_<pid>`, dropped afterwards), starts gunicorn on a free loopback port and
Celery workers, submits, polls until every job is final, and prints one JSON object. The LLM is off (rules-only
pipeline): the LLM is measured by `make bench` (bench_llm, bench_jobs).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from contracts.operations.processes import worker_command
from tests.files import cjk_pdf_bytes
from tests.load.wrk_client import MULTIPART, json_body, multipart_body, wrk_submit
from tests.workers import process_group_stop

ROOT = Path(__file__).resolve().parents[2]
FINAL = {"done", "needs_review", "failed"}
TICKET = "第{n}号诉求：小区楼下餐馆夜间油烟和噪音扰民，已经反映{n}次仍未处理，请相关部门尽快解决。"
CONTRACT = "第一条 合同编号HT-{n}。本合同有效期{m}年。\n第二条 违约方应支付合同总价款百分之{m}的违约金。"


def free_port(host: str = "127.0.0.1") -> int:
    """An unused TCP port on `host` (the OS picks it)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of `values` (share in 0..1)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


@contextmanager
def load_database(base_url: str) -> Iterator[str]:
    """Create an empty database next to the one in `base_url`, yield its URL, drop it afterwards."""
    import psycopg

    parts = urlsplit(base_url)
    name = f"{parts.path.lstrip('/') or 'docgate'}_load_{os.getpid()}"
    admin = urlunsplit((parts.scheme.replace("postgres", "postgresql", 1) if parts.scheme == "postgres" else
                        parts.scheme, parts.netloc, "/postgres", "", ""))  # fmt: skip
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def child(command: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process in its own session; SIGTERM (then SIGKILL) its group afterwards."""
    out = open(log, "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield process
    finally:
        process_group_stop(process, grace_s=20)
        out.close()


def server_env(database_url: str, redis_url: str, data_dir: Path) -> dict[str, str]:
    """The environment of the run's gunicorn and Celery processes: LLM off, request budgets off."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DOCGATE_DATA_DIR": str(data_dir),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LLM_ENABLED": "false",
        "PYTHONUNBUFFERED": "1",
        # One key sends every request of the run: it measures throughput, not the request budgets.
        "DOCGATE_THROTTLE_SUBMIT": "off",
        "DOCGATE_THROTTLE_READ": "off",
    }


def gunicorn_command(port: int) -> list[str]:
    """gunicorn with DocGate's WSGI app, two sync workers, on a loopback port."""
    return [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "2", "--bind", f"127.0.0.1:{port}",
            "--timeout", "120"]  # fmt: skip


def api_key_issue() -> str:
    """Migrate the (empty) load database and return a fresh organisation API key."""
    import django
    from django.core.management import call_command

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request would drown the report
    call_command("migrate", verbosity=0, interactive=False)
    from contracts.models import ApiKey, Organisation

    organisation = Organisation.objects.create(name="Load 测试", slug="load")
    return ApiKey.issue(organisation=organisation, name="load")[1]


def pdf_upload(n: int, pages: int) -> bytes:
    """A distinct `pages`-page contract PDF with a CJK text layer (document n)."""
    lines = [CONTRACT.format(n=n, m=page % 9 + 1).replace("\n", "") for page in range(pages)]
    return cjk_pdf_bytes([[f"第{page + 1}页", line[:40], line[40:]] for page, line in enumerate(lines)])


def submission_body(n: int) -> dict[str, str]:
    """Submission n's JSON body: a distinct ticket (odd n) or contract (even n)."""
    if n % 2:
        return {"kind": "ticket", "text": TICKET.format(n=n), "reference": f"L-{n}"}
    return {"kind": "contract", "text": CONTRACT.format(n=n, m=n % 9 + 1), "reference": f"L-{n}"}


@dataclass
class Submitted:
    """What the clients saw: every request's latency (ms), each submission's last status, the accepted document
    ids by submission number, how many requests were retries and how many answers replayed an earlier one."""

    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    accepted: dict[int, str] = field(default_factory=dict)
    retries: int = 0
    replayed: int = 0

    @property
    def ids(self) -> list[str]:
        return list(self.accepted.values())


def submit_all(
    base_url: str,
    key: str,
    count: int,
    clients: int,
    uploads: dict[int, bytes] | None = None,
    *,
    attempts: int = 1,
    pace_s: float = 0.0,
    on_accepted: Callable[[int], None] | None = None,
) -> Submitted:
    """Submit `count` distinct documents from `clients` threads (texts, or the prepared PDF `uploads`).

    With `attempts` > 1 every submission carries its own Idempotency-Key and a transport error or a 5xx answer is
    sent again with the same key (as a careful client would); `pace_s` is each client's pause between submissions;
    `on_accepted` is called with the number accepted so far after each acceptance."""
    uploads = uploads or {}
    done = Submitted()
    lock = threading.Lock()
    counter = iter(range(count))

    def post(http: httpx.Client, n: int, headers: dict[str, str]) -> httpx.Response | None:
        try:
            if uploads:
                files = {"file": (f"contract-{n}.pdf", uploads[n], "application/pdf")}
                response = http.post("/api/v1/documents/", data={"kind": "contract"}, files=files, headers=headers)
            else:
                response = http.post("/api/v1/documents/", json=submission_body(n), headers=headers)
        except httpx.HTTPError:
            return None  # the connection failed or dropped: no answer
        return response

    def client_loop() -> None:
        with httpx.Client(base_url=base_url, headers={"Authorization": f"Api-Key {key}"}, timeout=60) as http:
            while (n := _next(counter, lock)) is not None:
                headers = {"Idempotency-Key": f"load-{uuid.uuid4()}"} if attempts > 1 else {}
                for attempt in range(attempts):
                    if attempt:
                        time.sleep(0.5)
                    started = time.perf_counter()
                    response = post(http, n, headers)
                    code = response.status_code if response is not None else 0
                    with lock:
                        done.latencies.append((time.perf_counter() - started) * 1000)
                        done.retries += attempt > 0
                    if 0 < code < 500:
                        break
                with lock:
                    done.statuses[code] = done.statuses.get(code, 0) + 1
                    if response is not None and code == 201:
                        done.accepted[n] = response.json()["document"]["id"]
                        done.replayed += response.headers.get("Idempotent-Replayed") == "true"
                        if on_accepted is not None:
                            on_accepted(len(done.accepted))
                time.sleep(pace_s)

    threads = [threading.Thread(target=client_loop) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done


def _next(counter: Iterator[int], lock: threading.Lock) -> int | None:
    with lock:
        return next(counter, None)


@contextmanager
def served(workers: int) -> Iterator[tuple[str, str]]:
    """gunicorn (and `workers` Celery processes, none for 0) on a fresh load database; yield (base URL, API key)."""
    base_db = os.environ.get("DATABASE_URL", "")
    redis_url = os.environ.get("REDIS_URL", "")
    if not base_db.startswith("postgres") or not redis_url:
        raise SystemExit("set DATABASE_URL=postgres://… and REDIS_URL=redis://… (loopback services)")
    import redis

    broker = redis.Redis.from_url(redis_url)
    broker.flushdb()
    with tempfile.TemporaryDirectory(prefix="docgate-load-") as tmp, load_database(base_db) as db_url:
        folder = Path(tmp)
        env = server_env(db_url, redis_url, folder)
        os.environ.update({k: env[k] for k in ("DATABASE_URL", "DOCGATE_DATA_DIR", "DJANGO_SETTINGS_MODULE")})
        os.environ["LLM_ENABLED"] = "false"
        key = api_key_issue()
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        celery = worker_command(concurrency=workers, standalone=True)
        worker = child(celery, env, folder / "worker.log") if workers else nullcontext()
        with child(gunicorn_command(port), env, folder / "gunicorn.log"), worker:
            if not wait_ready(base_url, key):
                raise SystemExit("gunicorn did not start:\n" + (folder / "gunicorn.log").read_text()[-2000:])
            yield base_url, key
    broker.flushdb()


def run(count: int, clients: int, workers: int, timeout_s: float, pdf_pages: int = 0) -> dict[str, Any]:
    """Submit and (with workers > 0) wait for every job; workers = 0 measures intake alone."""
    with served(workers) as (base_url, key):
        uploads = {n: pdf_upload(n, pdf_pages) for n in range(count)} if pdf_pages else {}  # made before timing
        started = time.perf_counter()
        submitted = submit_all(base_url, key, count, clients, uploads)
        latencies, statuses, ids = submitted.latencies, submitted.statuses, submitted.ids
        submit_s = time.perf_counter() - started
        final = wait_final(ids, timeout_s) if workers else 0
        wall_s = time.perf_counter() - started
        report = audit(ids) if workers else {"states": {}, "lost": 0, "duplicated": {}}
    return {
        "submitted": count,
        "accepted": len(ids),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "clients": clients,
        "gunicorn_workers": 2,
        "celery_concurrency": workers,
        "llm": "off (rules-only pipeline)",
        "upload": f"{pdf_pages}-page PDF (multipart)" if pdf_pages else "JSON text",
        "final": final,
        **report,
        "intake_ms": {
            "p50": round(percentile(latencies, 0.50), 1),
            "p90": round(percentile(latencies, 0.90), 1),
            "p99": round(percentile(latencies, 0.99), 1),
            "mean": round(statistics.fmean(latencies), 1),
            "max": round(max(latencies), 1),
        },
        "intake_rps": round(len(latencies) / submit_s, 1),
        "end_to_end_jobs_per_s": round(final / wall_s, 2),
        "submit_s": round(submit_s, 1),
        "wall_s": round(wall_s, 1),
    }


def run_wrk(
    count: int, clients: int, workers: int, seconds: float, timeout_s: float, pdf_pages: int = 0
) -> dict[str, Any]:
    """Submissions driven by wrk (see tests.load.wrk_client): `count` distinct prepared bodies (PDFs or texts) for
    at most `seconds`, with `workers` Celery processes running (none: intake alone); then every stored document is
    audited as `run` does (requests in flight when wrk stops are stored without being counted by it)."""
    with served(workers) as (base_url, key):
        if pdf_pages:
            bodies = {n: multipart_body(n, pdf_upload(n, pdf_pages)) for n in range(count)}
        else:
            bodies = {n: json_body(submission_body(n)) for n in range(count)}
        kind = MULTIPART if pdf_pages else "application/json"
        started = time.perf_counter()
        measured = wrk_submit(base_url, key, bodies, kind, clients, seconds)
        from contracts.models import Document  # Django is set up by `served`, for this run's database

        ids = [str(pk) for pk in Document.objects.values_list("pk", flat=True)]
        final = wait_final(ids, timeout_s) if workers else 0
        wall_s = time.perf_counter() - started
        report = audit(ids)
        if not workers:  # nothing was meant to run: only the stored documents are audited
            report = {
                "states": {},
                "lost": 0,
                "duplicated": {"documents_per_sha": report["duplicated"]["documents_per_sha"]},
            }
    return {
        "client": "wrk (2 threads)",
        "clients": clients,
        "gunicorn_workers": 2,
        "celery_concurrency": workers,
        "upload": f"{pdf_pages}-page PDF (multipart)" if pdf_pages else "JSON text",
        "requests": measured["requests"],
        "stored": len(ids),
        "non_2xx": measured["non_2xx"],
        "socket_errors": measured["socket_errors"],
        "final": final,
        **report,
        "intake_ms": {k: measured[k] for k in ("p50", "p90", "p99", "max")},
        "intake_rps": measured["requests_per_s"],
        "end_to_end_jobs_per_s": round(final / wall_s, 2) if workers else None,
    }


def wait_ready(base_url: str, key: str, timeout_s: float = 60) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{base_url}/api/v1/documents/", headers={"Authorization": f"Api-Key {key}"})
            if response.status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    return False


def wait_final(ids: list[str], timeout_s: float) -> int:
    from contracts.models import Job

    deadline = time.monotonic() + timeout_s
    while True:
        final = Job.objects.filter(document_id__in=ids, state__in=FINAL).count()
        if final >= len(ids) or time.monotonic() > deadline:
            return final
        time.sleep(0.5)


def audit(ids: list[str]) -> dict[str, Any]:
    """Count lost jobs (not final, or final without a result) and doubles (per sha, per document)."""
    from django.db.models import Count

    from contracts.models import Document, Job, Result

    not_final = Job.objects.filter(document_id__in=ids).exclude(state__in=FINAL).count()
    without_result = Job.objects.filter(document_id__in=ids, state__in=["done", "needs_review"], results=None).count()
    documents = Document.objects.filter(pk__in=ids)
    states = dict(Job.objects.filter(document_id__in=ids).values_list("state").annotate(n=Count("id")))
    return {
        "states": states,
        "lost": not_final + without_result + (len(ids) - documents.count()),
        "duplicated": {
            "documents_per_sha": documents.values("sha256").annotate(n=Count("id")).filter(n__gt=1).count(),
            "jobs_per_document": documents.annotate(n=Count("jobs")).filter(n__gt=1).count(),
            "results_per_document": Result.objects.filter(document_id__in=ids)
            .values("document_id")
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .count(),
        },
        "attempts_max": max(Job.objects.filter(document_id__in=ids).values_list("attempts", flat=True), default=0),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the load report; exit 1 when anything was lost, doubled or refused."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--celery-concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for every job to be final")
    parser.add_argument("--pdf-pages", type=int, default=0, help="upload PDFs of this many pages instead of text")
    parser.add_argument("--no-workers", action="store_true", help="measure intake alone: no Celery worker runs")
    parser.add_argument(
        "--wrk", type=float, default=0.0, metavar="SECONDS",
        help="submit with wrk instead of Python clients, for at most SECONDS (`--count` bodies are prepared)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    workers = 0 if args.no_workers else args.celery_concurrency
    if args.wrk:
        wrk_report = run_wrk(args.count, args.clients, workers, args.wrk, args.timeout, args.pdf_pages)
        print(json.dumps(wrk_report, ensure_ascii=False, indent=2))
        # Requests still in flight when wrk stops are stored but not counted by it: at most one per connection.
        in_flight = wrk_report["stored"] - wrk_report["requests"]
        doubled = sum(wrk_report["duplicated"].values())
        complete = 0 <= in_flight <= args.clients and doubled == 0 and wrk_report["lost"] == 0
        return 0 if complete and not wrk_report["non_2xx"] else 1
    report = run(args.count, args.clients, workers, args.timeout, args.pdf_pages)
    print(json.dumps(report, ensure_ascii=False, indent=2))
    doubled = sum(report["duplicated"].values())
    return 0 if report["lost"] == 0 and doubled == 0 and report["accepted"] == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
