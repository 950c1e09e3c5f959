"""Does the model earn its place: a mixed batch on the embedded stack, time until every result is final and how many
documents went to review because of the model.

Run: `python -m tests.benchmarks.bench_model_place [--tickets N] [--contracts N] [--chars N]` (one JSON object).
The stack is `bench_progressive`'s (SQLite, the file-backed broker, the local llama.cpp server with Gemma 3 270M, a
rules worker and a model worker) under the default `LLM_POLICY=cascade`. Public tickets and contracts are submitted
at once into a fresh organisation, alternating; times run from the first submission to the last final result.
`--rounds 2` submits the batch again into the same organisation once the first round is final: the steady state,
where the organisation's standing (`contracts.standing`) is what its first round left.
A review reason is the model's when the model produced it: `llm_*`, a conflict (only the model's answers conflict
with the rules), or a gate decision the model's policy answer raised. The plans' rules-only-by-policy skips are
counted per question, as is what the model was asked.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from contextlib import ExitStack
from itertools import zip_longest
from typing import Any

from rules.evaluation.common import jsonl_rows
from tests.benchmarks.django_bench import embedded_stack_start
from tests.shared_data import shared_file

MODEL_REASONS = ("llm_invalid_output", "llm_unavailable", "conflict")


def _model_reasons(reasons: list[str], gate: dict[str, Any] | None) -> list[str]:
    """The review reasons the model produced (a gate decision counts when the model's answer raised it)."""
    own = [r for r in reasons if r in MODEL_REASONS or r.startswith("llm_")]
    raised = gate is not None and any(str(r).startswith("llm policy check") for r in gate.get("reasons", []))
    if raised and any(r.startswith("gate_") for r in reasons):
        own.append("gate_raised_by_llm")
    return own


def _round_run(organisation: Any, batch: list[tuple[str, str]], number: int, timeout_s: float) -> dict[str, Any]:
    """Submit the batch at once (round `number` marks each text, so that none is a duplicate of an earlier
    round's), wait until every job is final, and count what happened."""
    from contracts.intake.submission import Submission, document_submit
    from contracts.models import FINAL_STATES, Job, JobState, Result

    started = time.monotonic()
    job_ids = [
        document_submit(
            organisation=organisation,
            submission=Submission(kind=kind, source="api", text=text if number == 1 else f"{text}\n（第{number}轮）"),
        ).job.pk
        for kind, text in batch
    ]
    while time.monotonic() < started + timeout_s:
        if Job.objects.filter(pk__in=job_ids, state__in=FINAL_STATES).count() == len(job_ids):
            break
        time.sleep(1)
    all_final_s = round(time.monotonic() - started, 1)
    states: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    model_review: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    by_policy: Counter[str] = Counter()
    for job in Job.objects.filter(pk__in=job_ids).select_related("document"):
        states[f"{job.document.kind}:{job.state}"] += 1
        reasons.update(job.review_reasons or [])
        result = Result.objects.filter(job=job, final=True).first()
        llm = (result.provenance or {}).get("llm", {}) if result is not None else {}
        plan = llm.get("plan", {"asked": [], "skipped": []})
        asked.update(q["question"] for q in plan["asked"])
        by_policy.update(q["question"] for q in plan["skipped"] if "rules-only by policy" in q["reason"])
        if job.state == JobState.NEEDS_REVIEW and _model_reasons(
            list(job.review_reasons or []), (job.artifacts or {}).get("gate")
        ):
            model_review[job.document.kind] += 1
    return {
        "round": number,
        "seconds_until_all_final": all_final_s,
        "states": dict(states),
        "review_reasons": dict(reasons),
        "in_review_because_of_model": dict(model_review),
        "questions_asked": dict(asked),
        "questions_rules_only_by_policy": dict(by_policy),
    }


def _standing() -> list[dict[str, Any]]:
    """The organisation's questions as /readyz lists them (none before the standing policy existed)."""
    try:
        from contracts.standing.policy import standings
    except ImportError:
        return []
    return [standing.as_dict() for standing in standings()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=36)
    parser.add_argument("--contracts", type=int, default=24, help="the public file holds 24")
    parser.add_argument("--chars", type=int, default=1500, help="each public contract is cut to this length")
    parser.add_argument("--timeout", type=float, default=3000.0, help="per round")
    parser.add_argument(
        "--rounds", type=int, default=1, help="the batch again into the same organisation (its standing carried over)"
    )
    args = parser.parse_args(argv)
    with ExitStack() as stack:
        organisation = embedded_stack_start(stack, "docgate-model-place-", {"LLM_POLICY": "cascade"})
        tickets = [("ticket", str(r["text"])) for r in list(jsonl_rows(shared_file("tickets/public.jsonl")))]
        contracts = [
            ("contract", str(r["text"])[: args.chars]) for r in jsonl_rows(shared_file("contracts/public.jsonl"))
        ]
        batch = [
            doc
            for pair in zip_longest(tickets[: args.tickets], contracts[: args.contracts])
            for doc in pair
            if doc is not None
        ]
        report: dict[str, Any] = {
            "stack": "SQLite, file broker, llama.cpp (Gemma 3 270M), rules worker + llm worker, LLM_POLICY=cascade",
            "documents_per_round": len(batch),
            "rounds": [_round_run(organisation, batch, n, args.timeout) for n in range(1, args.rounds + 1)],
            "standing": _standing(),
        }
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
