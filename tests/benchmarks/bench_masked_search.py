"""The job list's search over masked text (a submitter's) against the plain SQL search (a reviewer's).

Run: `python -m tests.benchmarks.bench_masked_search` (throw-away SQLite; `BENCH_DATABASE_URL=postgres://…/<empty
database>` to measure PostgreSQL instead; one JSON object). 1,000 tickets and 1,000 contracts from the shared
evaluation data, each with the result the rules-only pipeline gives its text; every query matches every document's
text, the worst case, where the masked search reads its whole bound (`MASKED_SEARCH_LIMIT`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from tests.benchmarks.django_bench import django_bench_setup
from tests.shared_data import shared_file

DOCUMENTS = 1000
DISTINCT = 20  # texts run through the pipeline; their results are copied onto the other documents
REPEATS = 5


def _texts(name: str) -> list[str]:
    with shared_file(name).open(encoding="utf-8") as rows:
        return [json.loads(line)["text"] for line in rows if line.strip()][:DISTINCT]


def _seed(organisation: Any, kind: str, texts: list[str]) -> None:
    """DOCUMENTS documents of the kind cycling over texts, each with the pipeline's result for its text."""
    from contracts.intake.submission import Submission, document_submit
    from contracts.models import Document, Job, JobState, Result
    from contracts.pipeline import job_run

    data = []
    for text in texts:
        outcome = document_submit(organisation=organisation, submission=Submission(kind=kind, source="api", text=text))
        job_run(outcome.job.pk, "bench")
        result = outcome.document.latest_result()
        data.append(result.data if result is not None else {})
    for n in range(len(texts), DOCUMENTS):
        text = f"{texts[n % len(texts)]}\n{kind}-{n}"  # distinct checksums
        document = Document.objects.create(
            organisation=organisation,
            kind=kind,
            source="api",
            content_type="text/plain",
            size_bytes=len(text.encode()),
            sha256=hashlib.sha256(text.encode()).hexdigest(),
            text=text,
        )
        job = Job.objects.create(organisation=organisation, document=document, state=JobState.DONE)
        Result.objects.create(
            organisation=organisation, document=document, job=job, version=1, data=data[n % len(texts)]
        )


def _best(action: Callable[[], Any]) -> tuple[float, Any]:
    """The fastest of REPEATS runs, in milliseconds, and what the last run returned."""
    best, value = float("inf"), None
    for _ in range(REPEATS):
        started = time.perf_counter()
        value = action()
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 1), value


def _measure(organisation: Any, kind: str, query: str) -> dict[str, Any]:
    from contracts.models import Document
    from contracts.tenancy.personal_data import documents_matching_masked, latest_personal_findings, text_masked

    documents = Document.objects.filter(organisation=organisation, kind=kind)
    sql_ms, matched = _best(lambda: list(documents.filter(text__icontains=query).values_list("pk", flat=True)))
    masked_ms, kept = _best(lambda: documents_matching_masked(documents, query))
    rows = list(documents.annotate(f=latest_personal_findings()).values_list("text", "f"))
    read_ms, _ = _best(lambda: list(documents.annotate(f=latest_personal_findings()).values_list("pk", "text", "f")))
    mask_ms, _ = _best(lambda: [text_masked(text, findings or []) for text, findings in rows])
    return {
        "documents_matching_in_sql": len(matched),
        "kept_after_masking": len(kept),
        "mean_text_chars": round(sum(len(text) for text, _ in rows) / len(rows)),
        "sql_search_ms": sql_ms,
        "masked_search_ms": masked_ms,
        "of_which_read_text_and_findings_ms": read_ms,
        "of_which_mask_texts_ms": mask_ms,
    }


def main() -> int:
    """Print the cost of each search per kind."""
    import os

    organisation, _ = django_bench_setup(database_url=os.environ.get("BENCH_DATABASE_URL", ""))
    from django.db import connection

    report: dict[str, Any] = {"database": connection.vendor, "documents_per_kind": DOCUMENTS, "searches": {}}
    for kind, name in (("ticket", "tickets/public.jsonl"), ("contract", "contracts/public.jsonl")):
        _seed(organisation, kind, _texts(name))
        report["searches"][kind] = _measure(organisation, kind, "，")  # in every text
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
