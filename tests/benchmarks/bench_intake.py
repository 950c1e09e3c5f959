"""Intake API bench: POST /api/v1/documents/ (validation, dedupe, storage, audit, enqueue) against a raw insert.

Run: `python -m tests.benchmarks.bench_intake` (throw-away SQLite, in-process Django test client; one JSON object).
The baseline is `Document.objects.create` + `Job.objects.create` of the same text in the same run, so the ratio
is what the API layer and the intake service cost on top of storing the rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from tests.benchmarks.django_bench import contract_text, django_bench_setup
from tests.load.wrk_client import WRK_MISSING, wrk_available

# The services `make bench` found, read before the in-process part points Django at a throw-away SQLite.
SERVICES = {name: os.environ.get(name, "") for name in ("DATABASE_URL", "REDIS_URL")}
SIZES = {"small_200_chars": 200, "medium_20k_chars": 20_000, "large_500k_chars": 500_000}
REQUESTS = {"small_200_chars": 200, "medium_20k_chars": 60, "large_500k_chars": 8}


def per_op_ms(operation: Callable[[int], None], count: int, offset: int) -> float:
    started = time.perf_counter()
    for n in range(count):
        operation(offset + n)
    return (time.perf_counter() - started) * 1000 / count


def main() -> int:
    """Print ms per submission through the API and through a raw insert, per document size."""
    organisation, key = django_bench_setup()
    from rest_framework.test import APIClient

    from contracts.models import Document, Job

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
    report: dict[str, Any] = {"transport": "Django test client (in-process WSGI), SQLite", "sizes": {}}
    salt = 0
    for label, chars in SIZES.items():
        count = REQUESTS[label]
        texts = {n: contract_text(chars, n) for n in range(salt, salt + 2 * count + 1)}

        def api_submit(n: int, texts: dict[int, str] = texts) -> None:
            response = client.post("/api/v1/documents/", {"kind": "contract", "text": texts[n]}, format="json")
            assert response.status_code == 201, response.content[:300]

        def raw_insert(n: int, texts: dict[int, str] = texts) -> None:
            text = texts[n]
            document = Document.objects.create(
                organisation=organisation, kind="contract", source="api", text=text,
                sha256=hashlib.sha256(text.encode()).hexdigest(), size_bytes=len(text.encode()),
            )  # fmt: skip
            Job.objects.create(organisation=organisation, document=document)

        api_submit(salt + 2 * count)  # warm-up
        api_ms = per_op_ms(api_submit, count, salt)
        raw_ms = per_op_ms(raw_insert, count, salt + count)
        report["sizes"][label] = {
            "chars": chars,
            "requests": count,
            "api_ms_per_submission": round(api_ms, 2),
            "api_submissions_per_s": round(1000 / api_ms, 1),
            "raw_insert_ms": round(raw_ms, 2),
            "ratio_api_over_raw_insert": round(api_ms / raw_ms, 2),
        }
        salt += 2 * count + 1
    sizes = report["sizes"]
    report["growth_large_over_small_ms"] = round(
        sizes["large_500k_chars"]["api_ms_per_submission"] / sizes["small_200_chars"]["api_ms_per_submission"], 1
    )
    report["pdf_20_pages_20_clients"] = concurrent_pdf_intake()
    report["with_workers_20_clients"] = intake_with_workers()
    json.dump(report, sys.stdout, ensure_ascii=False)
    return 0


def _load_run(*argv: str) -> dict[str, Any]:
    """`tests.load.run_load` with `argv` on the services `make bench` found: its JSON report, or {"error": …}."""
    completed = subprocess.run(
        [sys.executable, "-m", "tests.load.run_load", *argv],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **SERVICES},
    )
    if completed.returncode != 0:
        return {"error": (completed.stdout + completed.stderr).strip().splitlines()[-5:]}
    report: dict[str, Any] = json.loads(completed.stdout)
    return report


def services_missing() -> dict[str, str] | None:
    """Why the load runs cannot run here (they need PostgreSQL and Redis), or None."""
    if not SERVICES["DATABASE_URL"].startswith("postgres") or not SERVICES["REDIS_URL"]:
        return {"skipped": "needs PostgreSQL and Redis (make bench starts them where it can)"}
    return None


def concurrent_pdf_intake() -> dict[str, Any]:
    """Intake alone under load: 200 distinct 20-page PDFs uploaded by 20 concurrent clients to gunicorn on
    PostgreSQL, no worker running (`tests.load.run_load --pdf-pages 20 --no-workers`); its latency percentiles."""
    if (missing := services_missing()) is not None:
        return missing
    load = _load_run("--count", "200", "--clients", "20", "--pdf-pages", "20", "--no-workers")
    if "error" in load:
        return load
    report = {"accepted": load["accepted"], "intake_ms": load["intake_ms"], "intake_rps": load["intake_rps"]}
    report["with_wrk"] = wrk_pdf_intake()
    return report


def intake_with_workers() -> dict[str, Any]:
    """Intake while the jobs run (issue 17's load run): 500 distinct JSON submissions from 20 Python clients, and
    6 s of wrk over 1,400 prepared ones, to gunicorn (2 workers) with a Celery worker (concurrency 2) on the same
    cores, LLM off; every job waited for and audited (lost, duplicated)."""
    if (missing := services_missing()) is not None:
        return missing
    report: dict[str, Any] = {}
    runs = {"python_clients": ("--count", "500"), "wrk": ("--count", "1400", "--wrk", "6")}
    for name, argv in runs.items():
        if name == "wrk" and not wrk_available():
            report[name] = {"skipped": WRK_MISSING}
            continue
        load = _load_run(*argv, "--clients", "20")
        keep = ("intake_ms", "intake_rps", "lost", "duplicated", "final", "end_to_end_jobs_per_s")
        report[name] = load if "error" in load else {key: load[key] for key in keep}
    return report


def wrk_pdf_intake() -> dict[str, Any]:
    """The same intake driven by wrk (tests.load.wrk_client: a C client that leaves the two cores to the server)
    for 3 s over 1,000 distinct PDFs (more than 3 s can take at ~250 uploads/s)."""
    if not wrk_available():
        return {"skipped": WRK_MISSING}
    load = _load_run("--count", "1000", "--clients", "20", "--pdf-pages", "20", "--no-workers", "--wrk", "3")
    if "error" in load:
        return load
    return {"requests": load["requests"], "intake_ms": load["intake_ms"], "intake_rps": load["intake_rps"]}


if __name__ == "__main__":
    sys.exit(main())
