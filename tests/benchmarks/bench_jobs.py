"""End-to-end job bench: the whole pipeline with the local LLM against the rules-only pipeline, small vs large.

Run: `python -m tests.benchmarks.bench_jobs` (throw-away SQLite; starts its own llama.cpp server with Gemma 3 270M;
one JSON object). Each job is submitted through the intake service and run with `job_run` in this process (no
broker hop): the baseline is the same documents through the rules-only pipeline in the same run.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from tests.benchmarks.django_bench import contract_text, django_bench_setup
from tests.llm_server import local_llm_server

TICKET = "第{n}号：小区楼下餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"
DOCUMENTS = {
    "small_ticket": ("ticket", 3),
    "small_contract_300_chars": ("contract", 2),
    "large_contract_3000_chars": ("contract", 1),
}


def _text(label: str, n: int) -> str:
    if label == "small_ticket":
        return TICKET.format(n=n)
    return contract_text(300 if label.startswith("small") else 3000, n)


def _run_jobs(organisation: Any, label: str, salt: int) -> tuple[float, int]:
    """Submit and run this label's documents; return (mean seconds per job, degraded count)."""
    from contracts.intake.submission import Submission, document_submit
    from contracts.pipeline import job_run

    kind, count = DOCUMENTS[label]
    total, degraded = 0.0, 0
    for n in range(count):
        job = document_submit(
            organisation=organisation, submission=Submission(kind=kind, source="api", text=_text(label, salt + n))
        ).job
        started = time.perf_counter()
        job_run(job.pk, "bench")
        total += time.perf_counter() - started
        job.refresh_from_db()
        degraded += int(job.degraded)
    return total / count, degraded


def main() -> int:
    """Print seconds per job with and without the LLM, per document size."""
    organisation, _ = django_bench_setup()
    from django.conf import settings

    report: dict[str, Any] = {"model": "gemma-3-270m (llama.cpp, 2 threads)", "jobs": {}}
    with local_llm_server() as server:
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_ENGINE, settings.LLM_MODEL = "llamacpp", "gemma-3-270m"
        settings.LLM_MAX_OUTPUT_TOKENS, settings.LLM_MAX_RETRIES, settings.LLM_TIMEOUT_S = 48, 0, 300.0
        settings.LLM_ENABLED = True
        _run_jobs(organisation, "small_ticket", 900)  # warm-up: model pages, prompt cache
        salt = 0
        for label in DOCUMENTS:
            print(f"{label} …", file=sys.stderr, flush=True)
            settings.LLM_ENABLED = False
            rules_s, _ = _run_jobs(organisation, label, salt)
            settings.LLM_ENABLED = True
            llm_s, degraded = _run_jobs(organisation, label, salt + 100)
            report["jobs"][label] = {
                "jobs": DOCUMENTS[label][1],
                "rules_only_s_per_job": round(rules_s, 3),
                "with_llm_s_per_job": round(llm_s, 2),
                "ratio_llm_over_rules_only": round(llm_s / rules_s, 1),
                "degraded": degraded,
            }
            salt += 1000
    jobs = report["jobs"]
    report["growth_large_over_small_contract"] = {
        "rules_only": round(
            jobs["large_contract_3000_chars"]["rules_only_s_per_job"]
            / jobs["small_contract_300_chars"]["rules_only_s_per_job"], 1
        ),
        "with_llm": round(
            jobs["large_contract_3000_chars"]["with_llm_s_per_job"]
            / jobs["small_contract_300_chars"]["with_llm_s_per_job"], 1
        ),
    }  # fmt: skip
    json.dump(report, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
