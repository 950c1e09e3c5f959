"""Cascade vs always: what the model is asked per document, what it costs, and what the merged results score.

Run: `python -m tests.benchmarks.bench_cascade [--contracts N] [--tickets N]` (starts its own llama.cpp server
with Gemma 3 270M; one JSON object). Both policies run the whole pipeline in memory (`document_analyze`, the
stages a worker runs) over the same public contracts and tickets in the same run: LLM prompt and completion
tokens and LLM wall time per document (from the client's own counters), which questions were asked, the
clause micro-F1 of the merged findings (rule findings the rules read as present, plus the model's own) and
the share of the server's prompt tokens that llama.cpp took from its prompt cache (`prefix-match hit` in its
log: the prompts put the fenced chunk first, so questions about the same chunk share it).

The default sample keeps `make bench` within minutes on two cores (prompt processing runs at ~120 tokens/s);
`--contracts 24 --tickets 50` is the full public set.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from rules.evaluation.common import jsonl_rows
from tests.benchmarks.django_bench import django_bench_setup
from tests.llm_server import local_llm_server
from tests.shared_data import shared_file

POLICIES = ("always", "cascade")
_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")


def _sample(path: str, n: int) -> list[dict[str, Any]]:
    rows = list(jsonl_rows(shared_file(path)))
    step = max(1, len(rows) // max(n, 1))
    return rows[::step][:n]


def _cache_reuse(log: Path, since: int) -> dict[str, Any]:
    """Prompt tokens llama.cpp reused from its cache vs evaluated, from its log after byte offset `since`."""
    text = log.read_bytes()[since:].decode("utf-8", "replace")
    hits = [(int(reused), int(rest)) for reused, rest in _PREFIX_HIT.findall(text)]
    reused = sum(r for r, _ in hits)
    evaluated = sum(rest for _, rest in hits)
    share = _ratio(reused, reused + evaluated)
    return {"prefix_hits": len(hits), "reused_tokens": reused, "reuse_share_of_hit_prompts": share}


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 4) if b else None


def _predicted(predictions: dict[str, dict[str, tuple[int, int]]], text: str) -> dict[str, tuple[int, int] | None]:
    return dict(predictions[text])


def _run_policy(policy: str, contracts: list[dict[str, Any]], tickets: list[dict[str, Any]]) -> dict[str, Any]:
    from django.conf import settings

    from contracts.analysis import document_context
    from contracts.llm import llm_client
    from contracts.pipeline import result_data
    from rules.clauses import PRESENT
    from rules.evaluation.clauses import evaluate_clauses

    settings.LLM_POLICY = policy
    client = llm_client()
    out: dict[str, Any] = {}
    for kind, rows in (("contract", contracts), ("ticket", tickets)):
        prompt: list[int] = []
        completion: list[int] = []
        wall: list[float] = []
        asked: dict[str, int] = {}
        predictions: dict[str, dict[str, tuple[int, int]]] = {}
        categories = []
        for row in rows:
            before = client.stats()
            started = time.perf_counter()
            ctx = document_context(str(row["text"]).encode("utf-8"), name="doc.txt", kind=kind, llm=True)
            wall.append(time.perf_counter() - started)
            data = result_data(ctx).as_json()
            after = client.stats()
            prompt.append(after.prompt_tokens - before.prompt_tokens)
            completion.append(after.completion_tokens - before.completion_tokens)
            for question in ctx.plan.asked if ctx.plan is not None else []:
                asked[question.name] = asked.get(question.name, 0) + 1
            found: dict[str, tuple[int, int]] = {}
            for finding in data["findings"]:
                if finding["kind"] == "clause" and (finding["source"] == "llm" or finding.get("status") in PRESENT):
                    start, end = finding["span"]
                    found.setdefault(finding["label"], (start, end))
            predictions[str(row["text"])] = found
            categories.append(data.get("response", {}).get("category"))
        report: dict[str, Any] = {
            "documents": len(rows),
            "prompt_tokens_per_doc": round(statistics.fmean(prompt), 1) if rows else 0,
            "completion_tokens_per_doc": round(statistics.fmean(completion), 1) if rows else 0,
            "llm_wall_s_per_doc": round(statistics.fmean(wall), 2) if rows else 0,
            "documents_asking_the_model": sum(1 for p in prompt if p),
            "questions_asked": asked,
        }
        if kind == "contract" and rows:
            scores = evaluate_clauses(rows, predict=partial(_predicted, dict(predictions)))
            report["merged_clause_micro_f1"] = scores.get("micro_f1")
            report["merged_clause_macro_f1"] = scores.get("macro_f1")
        elif rows:
            report["category_accuracy"] = round(
                sum(c == row["label"] for c, row in zip(categories, rows, strict=True)) / len(rows), 4
            )
        out[kind] = report
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contracts", type=int, default=8)
    parser.add_argument("--tickets", type=int, default=16)
    args = parser.parse_args(argv)
    django_bench_setup()
    from django.conf import settings

    contracts = _sample("contracts/public.jsonl", args.contracts)
    tickets = _sample("tickets/public.jsonl", args.tickets)
    report: dict[str, Any] = {}
    with local_llm_server() as server:
        settings.LLM_ENABLED = True
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_MAX_OUTPUT_TOKENS = 96
        settings.LLM_TIMEOUT_S = 300.0
        settings.LLM_MAX_RETRIES = 0
        assert server.log_path is not None
        for policy in POLICIES:
            since = server.log_path.stat().st_size
            report[policy] = _run_policy(policy, contracts, tickets)
            report[policy]["llama_cpp_prompt_cache"] = _cache_reuse(server.log_path, since)
    for kind in ("contract", "ticket"):
        always, cascade = report["always"][kind], report["cascade"][kind]
        report[f"{kind}_prompt_token_ratio_cascade_over_always"] = _ratio(
            cascade["prompt_tokens_per_doc"], always["prompt_tokens_per_doc"]
        )
        report[f"{kind}_llm_wall_ratio_cascade_over_always"] = _ratio(
            cascade["llm_wall_s_per_doc"], always["llm_wall_s_per_doc"]
        )
    print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
