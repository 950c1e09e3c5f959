"""The LLM stage against a real llama.cpp server: provenance, grounding, degradation and recovery."""

from __future__ import annotations

import time
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, Result
from contracts.pipeline import job_run
from inference.local_server import LocalLLMServer

pytestmark = [pytest.mark.llm, pytest.mark.django_db]

TICKET = "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"
CONTRACT = (
    "第一条 合同期限\n本合同自双方签字之日起生效，有效期两年。\n"
    "第二条 违约责任\n任何一方违约的，应向对方支付合同总价款百分之十的违约金。\n"
    "第三条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n"
)


def run(actors: Any, kind: str, text: str) -> tuple[Job, Result]:
    """Both runs of a job: the rules (a provisional result), then the model's questions (the final one)."""
    job = document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text)).job
    assert job_run(job.pk, "llm-test").status == JobState.PROVISIONAL
    job_run(job.pk, "llm-test", phase=JobPhase.LLM)
    job.refresh_from_db()
    return job, Result.objects.filter(job=job).order_by("-version")[0]


def llm_findings(result: Result) -> list[dict[str, Any]]:
    return [f for f in result.data["findings"] if f["source"] == "llm"]


def test_ticket_job_records_model_engine_prompt_and_latency(actors: Any, llm_on: LocalLLMServer) -> None:
    job, result = run(actors, "ticket", TICKET)
    assert job.state in (JobState.DONE, JobState.NEEDS_REVIEW)
    assert not job.degraded
    llm = result.provenance["llm"]
    assert (llm["model"], llm["engine"]) == ("gemma-3-270m", "llamacpp")
    task = llm["tasks"]["ticket_classify"]
    assert task["prompt_version"].startswith("ticket_classification")
    assert task["calls"] >= 1 and task["llm_latency_ms"] > 0
    assert llm["breaker"]["state"] == "closed"
    assert "llm" in job.stage_timings
    normalized = job.artifacts["normalize"]["text"]
    for finding in llm_findings(result):
        # Every LLM finding kept is grounded: its quote is really in the text and its span points at it.
        assert finding["evidence"] in normalized
        start, end = finding["span"]
        assert 0 <= start < end <= len(TICKET)


def test_contract_job_keeps_only_grounded_llm_clauses(actors: Any, llm_on: LocalLLMServer) -> None:
    job, result = run(actors, "contract", CONTRACT)
    task = result.provenance["llm"]["tasks"]["clauses_extract"]
    assert task["chunks"] >= 1
    kept = llm_findings(result)
    normalized = job.artifacts["normalize"]["text"]
    for finding in kept:
        s, e = finding["normalized_span"]
        assert normalized[s:e] == finding["evidence"]
    # What the model said but could not be found in the text was counted, not kept.
    assert task["dropped_ungrounded"] >= 0
    assert any(f["source"] == "rule" and f["kind"] == "clause" for f in result.data["findings"])


def test_llm_outage_degrades_to_rules_and_the_breaker_recovers(
    actors: Any, llm_on: LocalLLMServer, settings: Any
) -> None:
    settings.DOCGATE_LLM_WAIT_MAX_S = 0  # no waiting for the model: this test is about degrading at once
    llm_on.stop()
    try:
        job, result = run(actors, "ticket", TICKET)
        assert job.state == JobState.NEEDS_REVIEW
        assert job.degraded and "llm_unavailable" in job.review_reasons
        assert result.data["degraded"] is True
        categories = [f for f in result.data["findings"] if f["kind"] == "ticket_category"]
        assert categories and all(f["source"] == "rule" for f in categories)
        # Enough failures open the breaker: the next job fails fast without waiting on the network.
        run(actors, "ticket", TICKET + "（第二次）")
        started = time.perf_counter()
        job3, result3 = run(actors, "ticket", TICKET + "（第三次）")
        assert result3.provenance["llm"]["breaker"]["state"] == "open"
        assert job3.degraded
        assert time.perf_counter() - started < 5
    finally:
        llm_on.start()
    time.sleep(1.2)  # the cool-down: the breaker lets one trial call through
    job4, result4 = run(actors, "ticket", TICKET + "（恢复后）")
    assert not job4.degraded
    assert result4.provenance["llm"]["breaker"]["state"] == "closed"
