"""LLM stage bench: DocGate's task time against the raw server calls it makes, and concurrency, on the local server.

Run: `python -m tests.benchmarks.bench_llm` (starts its own llama.cpp server with Gemma 3 270M; one JSON object).
The overhead ratio is the wall time of DocGate's LLM tasks (prompting, token counting, chunking, validation,
grounding) over the HTTP time of the chat calls inside them, measured in the same run.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from inference.answers import LLMTaskResult
from inference.client import LLMClient
from inference.config import LLMConfig
from inference.errors import LLMError
from inference.questions import clauses_extract, ticket_classify
from rules.clauses import load_pack
from rules.evaluation.common import jsonl_rows
from rules.normalize import normalize
from rules.tickets.taxonomy import load_taxonomy
from tests.llm_server import local_llm_server
from tests.shared_data import shared_file

MAX_OUTPUT_TOKENS = 48
TICKETS = 8


def _tickets(n: int) -> list[str]:
    texts = [str(row["text"])[:300] for row in jsonl_rows(shared_file("tickets/public.jsonl"))]
    step = max(1, len(texts) // n)
    return [normalize(text).text for text in texts[::step][:n]]


def _contract() -> str:
    first = next(iter(jsonl_rows(shared_file("contracts/public.jsonl"))))
    return normalize(str(first["text"])[:3000]).text


def _timed(task: Callable[[], LLMTaskResult]) -> tuple[LLMTaskResult, float]:
    """Run one task and return it with its wall time in ms, measured outside DocGate's own bookkeeping."""
    started = time.perf_counter()
    result = task()
    return result, (time.perf_counter() - started) * 1000


def _overhead(runs: list[tuple[LLMTaskResult, float]]) -> dict[str, float]:
    wall = sum(wall_ms for _, wall_ms in runs)
    raw = sum(result.llm_latency_ms for result, _ in runs)
    results = [result for result, _ in runs]
    return {
        "task_wall_s": round(wall / 1000, 2),
        "raw_call_s": round(raw / 1000, 2),
        "overhead_ratio": round(wall / raw, 4) if raw else float("nan"),
        "calls": sum(r.calls for r in results),
    }


def main() -> int:
    """Print one JSON object with the overhead ratio and the throughput at 1, 4 and 8 concurrent jobs."""
    tickets = _tickets(TICKETS)
    taxonomy = load_taxonomy()
    labels = tuple(load_pack().clauses)
    report: dict[str, object] = {"model": "gemma-3-270m (llama.cpp, 2 threads)", "max_output_tokens": MAX_OUTPUT_TOKENS}
    with local_llm_server() as server:
        config = LLMConfig(
            base_url=server.base_url,
            context_window_tokens=2048,
            max_output_tokens=MAX_OUTPUT_TOKENS,
            read_timeout_s=300,
            max_concurrency=8,
        )
        with LLMClient(config) as client:
            ticket_classify(client, tickets[0], taxonomy)  # warm-up: model pages, prompt cache
            print("measuring overhead …", file=sys.stderr, flush=True)
            contract = _contract()
            ticket_results = [_timed(partial(ticket_classify, client, text, taxonomy)) for text in tickets]
            contract_result = _timed(partial(clauses_extract, client, contract, labels))
            report["overhead"] = {
                "tickets": _overhead(ticket_results),
                "contract": _overhead([contract_result]),
                "all": _overhead([*ticket_results, contract_result]),
            }
            throughput: dict[str, dict[str, Any]] = {}
            for workers in (1, 4, 8):
                print(f"throughput with {workers} concurrent jobs …", file=sys.stderr, flush=True)
                started = time.perf_counter()
                failures = 0
                with ThreadPoolExecutor(max_workers=workers) as pool:
                    futures = [pool.submit(ticket_classify, client, text, taxonomy) for text in tickets]
                    for future in futures:
                        try:
                            future.result()
                        except LLMError:
                            failures += 1
                elapsed = time.perf_counter() - started
                throughput[str(workers)] = {
                    "jobs": len(tickets),
                    "seconds": round(elapsed, 2),
                    "jobs_per_minute": round(len(tickets) / elapsed * 60, 2),
                    "failures": failures,
                }
            base = throughput["1"]["jobs_per_minute"]
            for row in throughput.values():
                row["ratio_vs_1"] = round(row["jobs_per_minute"] / base, 3) if base else None
            report["throughput"] = throughput
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
