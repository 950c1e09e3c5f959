"""Time to the provisional and to the final result for a batch of contracts on the embedded stack.

Run: `python -m tests.benchmarks.bench_progressive [--contracts N] [--chars N]` (one JSON object). The stack is
what `make run` starts, on its embedded defaults: SQLite, the file-backed broker, the local llama.cpp server
(Gemma 3 270M), a rules worker (default queue) and a model worker (`llm` queue). The batch is submitted at once
with `LLM_POLICY=always`, so that every contract has questions for the model and the model is busy for the whole
batch: the time to the provisional result is then what a user waits while the model works on other documents.
Times run from a document's submission to the creation of its provisional and final result rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import ExitStack
from typing import Any

from rules.evaluation.common import jsonl_rows
from tests.benchmarks.django_bench import embedded_stack_start
from tests.shared_data import shared_file

RULE_STAGES = ("extract", "normalize", "rules", "gate", "plan")


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "max": None, "n": 0}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {
        "p50": round(statistics.median(ordered), 2),
        "p95": round(p95, 2),
        "max": round(ordered[-1], 2),
        "n": len(ordered),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=10)
    parser.add_argument("--chars", type=int, default=1500, help="each public contract is cut to this length")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        llm_env = {
            "LLM_POLICY": "always",
            "LLM_STANDING_FLOOR": "0",  # the model stays busy for the whole batch, however it answers
            "LLM_MAX_OUTPUT_TOKENS": "64",
            "LLM_DRAFTS": "false",
        }
        organisation = embedded_stack_start(stack, "docgate-progressive-", llm_env)
        from contracts.intake.submission import Submission, document_submit
        from contracts.models import Job, JobState, Result

        rows = list(jsonl_rows(shared_file("contracts/public.jsonl")))[: args.contracts]
        jobs = [
            document_submit(
                organisation=organisation,
                submission=Submission(kind="contract", source="api", text=str(row["text"])[: args.chars]),
            ).job
            for row in rows
        ]
        deadline = time.monotonic() + args.timeout
        final_states = (JobState.DONE, JobState.NEEDS_REVIEW, JobState.FAILED)
        while time.monotonic() < deadline:
            if Job.objects.filter(pk__in=[j.pk for j in jobs], state__in=final_states).count() == len(jobs):
                break
            time.sleep(1)
        to_provisional: list[float] = []
        to_final: list[float] = []
        rules_phase: list[float] = []
        for job in Job.objects.filter(pk__in=[j.pk for j in jobs]).select_related("document"):
            submitted = job.document.created_at
            rules_phase.append(sum(job.stage_timings.get(s, {}).get("ms", 0.0) for s in RULE_STAGES) / 1000)
            for result in Result.objects.filter(job=job):
                seconds = (result.created_at - submitted).total_seconds()
                (to_final if result.final else to_provisional).append(seconds)
        report: dict[str, Any] = {
            "stack": "SQLite, file broker, llama.cpp (Gemma 3 270M), rules worker + llm worker, LLM_POLICY=always",
            "contracts": len(jobs),
            "chars_each": args.chars,
            "seconds_to_provisional": _percentiles(to_provisional),
            "seconds_to_final": _percentiles(to_final),
            "seconds_in_rule_stages": _percentiles(rules_phase),
            "finished": len(to_final),
        }
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
