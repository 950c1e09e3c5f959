"""The LLM stage in the pipeline: provenance, degradation and recovery against a real llama.cpp server, and
grounding against a scripted model that says exactly what the test needs (the real one is too weak to rely on)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, Result
from contracts.pipeline import job_run
from tests.inference.fake_server import Recorded, Scripted, ScriptedServer, completion, scripted_server
from tests.llm_server import LocalLLMServer

pytestmark = pytest.mark.django_db

TICKET = "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"
CONTRACT = (
    "第一条 合同期限\n本合同自双方签字之日起生效，有效期两年。\n"
    "第二条 违约责任\n任何一方违约的，应向对方支付合同总价款百分之十的违约金。\n"
    "第三条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n"
)
# What the scripted model claims: one quote that stands in CONTRACT, one it made up (a clause the rules do not
# find either, so nothing else in the result carries its label).
GROUNDED = ("付款/结算", "支付合同总价款百分之十")
UNGROUNDED = ("保密", "双方应对合作中知悉的商业秘密承担保密义务")
SAFE = {"content": [{"token": "No", "logprob": -0.05, "top_logprobs": [{"token": "Yes", "logprob": -3.0}]}]}


def run(actors: Any, kind: str, text: str) -> tuple[Job, Result]:
    """Both runs of a job: the rules (a provisional result), then the model's questions (the final one)."""
    job = document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text)).job
    assert job_run(job.pk, "llm-test").status == JobState.PROVISIONAL
    job_run(job.pk, "llm-test", phase=JobPhase.LLM)
    job.refresh_from_db()
    return job, Result.objects.filter(job=job).order_by("-version")[0]


def llm_findings(result: Result) -> list[dict[str, Any]]:
    return [f for f in result.data["findings"] if f["source"] == "llm"]


def scripted_model(recorded: Recorded) -> Scripted:
    """A model that answers the safety question "no" and the clause question with GROUNDED and UNGROUNDED."""
    if recorded.body.get("logprobs"):
        return completion("No", logprobs=SAFE)
    findings = [{"label": label, "evidence": quote} for label, quote in (GROUNDED, UNGROUNDED)]
    return completion(json.dumps({"findings": findings}, ensure_ascii=False))


@pytest.fixture
def scripted_llm(settings: Any) -> Iterator[ScriptedServer]:
    """DocGate's LLM stage switched on, every question asked, against `scripted_model` on a real socket."""
    with scripted_server() as server:
        server.count_chars_as_tokens, server.fallback = True, scripted_model
        settings.LLM_ENABLED = True
        settings.LLM_POLICY = "always"
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_ENGINE = "llamacpp"
        settings.LLM_CONTEXT_TOKENS = 8192  # the server counts a token a character: room for the prompt
        settings.LLM_DRAFTS = False
        settings.LLM_MAX_RETRIES = 0
        yield server


@pytest.mark.llm
@pytest.mark.parametrize(
    ("kind", "text", "question", "task_name", "prompt_version"),
    [
        ("ticket", TICKET, "ticket_category", "ticket_classify", "ticket_classification.v2"),
        ("contract", CONTRACT, "clauses", "clauses_extract", "clause_extraction.v2"),
    ],
    ids=["ticket", "contract"],
)
def test_job_records_model_engine_prompt_and_latency(
    actors: Any,
    llm_on: LocalLLMServer,
    settings: Any,
    kind: str,
    text: str,
    question: str,
    task_name: str,
    prompt_version: str,
) -> None:
    settings.LLM_DRAFTS = False  # the questions asked are then exactly the plan's, whatever the environment says
    job, result = run(actors, kind, text)
    assert job.state in (JobState.DONE, JobState.NEEDS_REVIEW)
    assert not job.degraded
    llm = result.provenance["llm"]
    assert (llm["model"], llm["engine"]) == ("gemma-3-270m", "llamacpp")
    assert [q["question"] for q in llm["plan"]["asked"]] == ["gate", question]
    # The safety question is the gate's; the plan's other question is the one task recorded, with what it cost.
    assert list(llm["tasks"]) == [task_name]
    task = llm["tasks"][task_name]
    assert task["prompt_version"] == prompt_version
    assert task["calls"] >= 1 and task["chunks"] == 1 and task["llm_latency_ms"] > 0
    assert task["wall_ms"] >= task["llm_latency_ms"]
    assert llm["breaker"]["state"] == "closed"
    assert job.stage_timings["llm"]["ms"] >= task["llm_latency_ms"]


def test_contract_job_keeps_only_grounded_llm_clauses(actors: Any, scripted_llm: ScriptedServer) -> None:
    job, result = run(actors, "contract", CONTRACT)
    clause_questions = [body for body in scripted_llm.chat_bodies() if "response_format" in body]
    assert len(clause_questions) == 1
    task = result.provenance["llm"]["tasks"]["clauses_extract"]
    assert (task["chunks"], task["calls"], task["invalid_outputs"]) == (1, 1, 0)
    # The made-up quote was counted and left out: nothing of its clause type reached the result.
    assert task["dropped_ungrounded"] == 1
    assert not [f for f in result.data["findings"] if f.get("label") == UNGROUNDED[0]]
    # The real one was kept, pointing at its words in the normalized text and in the text as submitted.
    (kept,) = llm_findings(result)
    assert (kept["label"], kept["evidence"]) == GROUNDED
    start, end = kept["normalized_span"]
    assert job.artifacts["normalize"]["text"][start:end] == GROUNDED[1]
    start, end = kept["span"]
    assert CONTRACT[start:end] == GROUNDED[1]


@pytest.mark.llm
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
