"""Queues by cost: how long tickets wait for their first result while scanned contracts are OCRed in the same batch.

Run: `python -m tests.benchmarks.bench_mixed_batch [--scans N] [--tickets N] [--every S]` (one JSON object). The
stack is what `make run` starts on its embedded defaults (SQLite, the file-backed broker; the model is off, so a
ticket's first result is its rules' result — the provisional one when the model has questions). Two layouts on
the same batch, one after the other:

- `by_cost`: the rules of texts on the default queue and files to read (parse, LibreOffice, OCR) on `convert`,
  each with its own worker (one process each), as `runstack` and compose run them;
- `one_worker`: a single worker process consuming both queues, as every job ran before the `convert` queue.

The batch: `--scans` one-page scanned contracts (300 dpi, OCRed by Tesseract: seconds each) submitted at once,
then `--tickets` public tickets as a hotline submits them, one every `--every` seconds. Times run from a
document's submission to its first result row; reported per kind as P50 / P95 / max. Before the batch, one text and
one file run through each layout, so its workers are up and warm (a service in its steady state).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rules.evaluation.common import jsonl_rows
from tests.benchmarks.bench_progressive import _percentiles
from tests.files import SCAN_TEXT, docx_bytes, scanned_pdf_bytes
from tests.shared_data import shared_file
from tests.workers import ROOT, process_group_stop

LAYOUTS = ("by_cost", "one_worker")


def _jobs_wait(job_ids: list[Any], timeout_s: float) -> None:
    """Wait until every job is final, or the timeout."""
    from contracts.models import FINAL_STATES, Job

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if Job.objects.filter(pk__in=job_ids, state__in=FINAL_STATES).count() == len(job_ids):
            return
        time.sleep(0.2)


def _layout_run(layout: str, args: argparse.Namespace, env: dict[str, str], folder: Path, scans: list[bytes]) -> Any:
    """Start the layout's workers, submit the batch into a fresh organisation, wait for every job, time it."""
    from contracts.intake.submission import Submission, document_submit
    from contracts.models import Job, Organisation, Result
    from contracts.operations.processes import CONVERT_QUEUE, DEFAULT_QUEUE, worker_command

    queues: dict[str, list[tuple[str, ...]]] = {
        "by_cost": [(DEFAULT_QUEUE,), (CONVERT_QUEUE,)],
        "one_worker": [(DEFAULT_QUEUE, CONVERT_QUEUE)],
    }
    with ExitStack() as stack:
        for number, consumed in enumerate(queues[layout]):
            log = open(folder / f"{layout}-{number}.log", "wb")  # noqa: SIM115 (closed with the stack)
            stack.callback(log.close)
            command = worker_command(
                concurrency=1, hostname=f"{layout}{number}@bench", standalone=True, queues=consumed
            )
            process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
            stack.callback(process_group_stop, process, 30)
        # A service in its steady state: each worker up, its pool processes warm (rule packs and models loaded),
        # shown by one text and one file run through the layout first.
        warm_up = Organisation.objects.create(name=f"Warm-up {layout}", slug=f"warm-up-{layout}")
        warm_jobs = [
            document_submit(organisation=warm_up, submission=submission).job.pk
            for submission in (
                Submission(kind="ticket", source="api", text="小区门口路灯不亮，请尽快维修。"),
                Submission(kind="contract", source="api", data=docx_bytes(["第一条 保密义务"]), original_name="a.docx"),
            )
        ]
        _jobs_wait(warm_jobs, args.timeout)
        organisation = Organisation.objects.create(name=f"Bench {layout}", slug=f"bench-{layout}")
        kinds: dict[str, str] = {}
        for number, scan in enumerate(scans):
            submission = Submission(kind="contract", source="api", data=scan, original_name=f"scan-{number}.pdf")
            kinds[str(document_submit(organisation=organisation, submission=submission).job.pk)] = "scan"
        rows = list(jsonl_rows(shared_file("tickets/public.jsonl")))[: args.tickets]
        for row in rows:
            submission = Submission(kind="ticket", source="api", text=str(row["text"]))
            kinds[str(document_submit(organisation=organisation, submission=submission).job.pk)] = "ticket"
            time.sleep(args.every)
        _jobs_wait(list(kinds), args.timeout)
        waits: dict[str, list[float]] = {"ticket": [], "scan": []}
        states: dict[str, int] = {}
        for job in Job.objects.filter(pk__in=kinds).select_related("document"):
            states[job.state] = states.get(job.state, 0) + 1
            first = Result.objects.filter(job=job).order_by("created_at").values_list("created_at", flat=True).first()
            if first is not None:
                waits[kinds[str(job.pk)]].append((first - job.document.created_at).total_seconds())
        ocr_s = [
            job.stage_timings.get("extract", {}).get("ms", 0.0) / 1000
            for job in Job.objects.filter(pk__in=[k for k, v in kinds.items() if v == "scan"])
        ]
    return {
        "workers": [",".join(consumed) for consumed in queues[layout]],
        "ticket_seconds_to_first_result": _percentiles(waits["ticket"]),
        "scan_seconds_to_first_result": _percentiles(waits["scan"]),
        "scan_extract_seconds": _percentiles(ocr_s),
        "job_states": states,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scans", type=int, default=3)
    parser.add_argument("--tickets", type=int, default=40)
    parser.add_argument("--every", type=float, default=0.5, help="seconds between two ticket submissions")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--layouts", default=",".join(LAYOUTS))
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="docgate-mixed-"))
    env = {
        **os.environ,
        "DOCGATE_DATA_DIR": str(folder),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LLM_ENABLED": "false",
        "PYTHONUNBUFFERED": "1",
    }
    os.environ.update({k: env[k] for k in ("DOCGATE_DATA_DIR", "DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")})
    os.environ["LLM_ENABLED"] = "false"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from contracts.intake.sandbox import converter_status

    ocr = converter_status("ocr")
    if not ocr.available:
        print(f"bench_mixed_batch: OCR is not installed here ({ocr.detail}); run `make converters`", file=sys.stderr)
        return 1
    call_command("migrate", verbosity=0, interactive=False)
    for sub in ("queue", "control"):
        (settings.BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    # Distinct pages (distinct checksums): a scan submitted twice would be answered as a duplicate.
    scans = [scanned_pdf_bytes(SCAN_TEXT, seed=seed) for seed in range(args.scans)]
    report: dict[str, Any] = {
        "stack": "SQLite, file broker, model off; one process per worker",
        "batch": {"scans": args.scans, "tickets": args.tickets, "ticket_every_s": args.every},
    }
    for layout in args.layouts.split(","):
        report[layout] = _layout_run(layout, args, env, folder, scans)
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
