"""/metrics scrape bench: P50/P95 of a scrape over 100,000 results (their jobs, documents, a review backlog).

Run: `python -m tests.benchmarks.bench_metrics` (one JSON object). On PostgreSQL when DATABASE_URL names one
(`make bench` does) — in a throw-away database beside it, dropped afterwards — else on a throw-away SQLite file.
Every result is from the last 24 hours, the worst case for the gate-decision window; the rows are bulk-inserted
as the pipeline would have written them, then the tables are vacuumed and analysed as autovacuum would.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from typing import Any

RESULTS = 100_000
BATCH = 5_000
SCRAPES = 25
TARGET_MS = 100.0
# The share of jobs per final state, and how many are degraded or waiting in the review queue.
DECISIONS = ("allow", "allow", "allow", "allow", "review", "allow", "allow", "block", "allow", "allow")
BENCH_DATABASE = "docgate_bench_metrics"


def django_setup() -> str:
    """Point Django at a fresh database (PostgreSQL beside DATABASE_URL's, else SQLite), migrate it and return
    the name of the database DATABASE_URL names ("" on SQLite), which the bench's own is dropped against."""
    folder = tempfile.mkdtemp(prefix="docgate-bench-")
    url = os.environ.get("DATABASE_URL", "")
    postgres = url.startswith(("postgres://", "postgresql://"))
    os.environ.update({"DOCGATE_DATA_DIR": folder, "LLM_ENABLED": "false", "DATABASE_URL": url if postgres else ""})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import logging

    import django
    from django.core.management import call_command
    from django.db import connection

    django.setup()
    logging.disable(logging.WARNING)
    if postgres:
        original = connection.settings_dict["NAME"]
        connection.settings_dict["TEST"]["NAME"] = BENCH_DATABASE
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        return str(original)
    call_command("migrate", verbosity=0, interactive=False)
    return ""


def result_data(n: int, decision: str) -> dict[str, Any]:
    """A pipeline result's `data` of typical size (15 findings, as the rules stage averages on contracts)."""
    findings = [
        {
            "id": f"F{i}", "type": "clause", "label": "违约责任", "source": "rules", "severity": "medium",
            "spans": [{"start": 100 * i, "end": 100 * i + 40}], "evidence": "任何一方违约的，应向对方支付违约金。",
            "rule": {"id": f"contract.clause.{i}", "pack": "contracts@7"}, "confidence": 0.9,
        }
        for i in range(1, 16)
    ]  # fmt: skip
    return {
        "kind": "contract", "findings": findings, "review_reasons": [], "degraded": False,
        "stats": {"chars": 3000 + n % 100}, "normalization": {"folded": 12, "t2s": 0},
        "gate": {"decision": decision, "reasons": ["lexicon"] if decision != "allow" else [], "risk": 0.1},
        "confidence": {"clauses": 0.9}, "suggested_response": "", "routing": {"needs_review": False, "reasons": []},
    }  # fmt: skip


def rows_create(total: int) -> None:
    """Bulk-insert `total` documents, each with its finished job and its pipeline result; a review backlog."""
    from django.utils import timezone

    from contracts.models import Document, Job, JobState, Organisation, Result, ReviewState, ReviewTask

    organisation = Organisation.objects.create(name="Bench", slug="bench")
    now = timezone.now()
    for offset in range(0, total, BATCH):
        documents, jobs, results, tasks = [], [], [], []
        for n in range(offset, min(offset + BATCH, total)):
            created = now - timedelta(seconds=(n * 86_000) // total)
            decision = DECISIONS[n % len(DECISIONS)]
            text = f"合同编号 M-{n}\n第1条 违约责任\n任何一方违约的，应向对方支付违约金。"
            document = Document(
                organisation=organisation, kind="contract", source="api", text=text, content_type="text/plain",
                size_bytes=len(text.encode()), sha256=hashlib.sha256(text.encode()).hexdigest(), created_at=created,
            )  # fmt: skip
            state = JobState.NEEDS_REVIEW if decision != "allow" else JobState.DONE
            job = Job(
                organisation=organisation, document=document, state=state, attempts=1, created_at=created,
                queued_at=created, started_at=created, finished_at=created, degraded=n % 20 == 0,
                stage_timings={"rules": {"ms": 12.5, "attempt": 1}, "gate": {"ms": 1.2, "attempt": 1}},
            )  # fmt: skip
            data = result_data(n, decision)
            results.append(
                Result(
                    organisation=organisation,
                    document=document,
                    job=job,
                    version=1,
                    data=data,
                    created_at=created,
                    provenance={"stages": ["extract", "normalize", "rules", "gate", "merge"]},
                    gate_decision=decision,
                )
            )
            if state == JobState.NEEDS_REVIEW:
                finalized = n % 3 != 0  # two thirds of the review tasks are done with
                tasks.append(
                    ReviewTask(
                        organisation=organisation,
                        job=job,
                        document=document,
                        created_at=created,
                        state=ReviewState.FINALIZED if finalized else ReviewState.OPEN,
                    )
                )
            documents.append(document)
            jobs.append(job)
        Document.objects.bulk_create(documents)
        Job.objects.bulk_create(jobs)
        Result.objects.bulk_create(results)
        ReviewTask.objects.bulk_create(tasks)
    Job.objects.create(organisation=organisation, document=documents[0], state=JobState.QUEUED)


def tables_analyse() -> None:
    """Vacuum and analyse the tables the scrape reads, as autovacuum would after a bulk load."""
    from django.db import connection

    tables = ("contracts_document", "contracts_job", "contracts_result", "contracts_reviewtask")
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"VACUUM ANALYZE {table}" if connection.vendor == "postgresql" else f"ANALYZE {table}")


def scrapes_ms(count: int) -> tuple[list[float], int, int]:
    """Scrape /metrics `count` times after one warm-up; return each scrape's ms, the queries and bytes of one."""
    from django.conf import settings
    from django.db import connection
    from django.test import Client

    settings.PROMETHEUS_METRICS_TOKEN = "bench-scrape"  # /metrics is closed without a token (or a private bind)
    client = Client(HTTP_AUTHORIZATION="Bearer bench-scrape")
    queries: list[str] = []

    def query_count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(query_count):
        body = client.get("/metrics").content
    assert b"docgate_gate_decisions" in body, body[-500:]
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        response = client.get("/metrics")
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200
    return timings, len(queries), len(body)


def main() -> int:
    """Create the rows, scrape, print the report; drop the PostgreSQL database again."""
    original = django_setup()
    from django.db import connection

    try:
        started = time.perf_counter()
        rows_create(RESULTS)
        tables_analyse()
        load_s = time.perf_counter() - started
        timings, queries, size = scrapes_ms(SCRAPES)
    finally:
        if original:
            connection.creation.destroy_test_db(original, verbosity=0)
    ordered = sorted(timings)
    report = {
        "database": "PostgreSQL" if original else "SQLite",
        "results": RESULTS,
        "results_in_gate_window": RESULTS,
        "scrapes": SCRAPES,
        "scrape_ms_p50": round(statistics.median(ordered), 2),
        "scrape_ms_p95": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2),
        "scrape_ms_max": round(ordered[-1], 2),
        "target_ms": TARGET_MS,
        "database_queries_per_scrape": queries,
        "body_bytes": size,
        "load_s": round(load_s, 1),
    }
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
