"""The llm phase resumes from the rule outputs its rules phase stored: it runs normalize and the stages after plan
only, and ends with the result a job that ran every stage again would have."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, Organisation, Result
from contracts.pipeline import job_run, pipeline_stages
from contracts.pipeline.resume import RULE_OUTPUTS, RULE_OUTPUTS_FORMAT, resume_from
from contracts.rerun import job_llm_rerun
from contracts.stages.base import JobContext
from tests.inference.fake_server import Recorded, Scripted, ScriptedServer, completion, scripted_server

pytestmark = pytest.mark.django_db

CONTRACT = (
    "第一条 合同期限\n本合同自双方签字之日起生效，有效期两年。\n"
    "第二条 违约责任\n任何一方违约的，应向对方支付合同总价款百分之十的违约金。\n"
    "第三条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n"
)
CLAUSES = {"违约金/违约责任": "应向对方支付合同总价款百分之十的违约金", "争议解决": "提交上海仲裁委员会仲裁"}
RULES_PHASE = ["extract", "normalize", "rules", "gate", "plan", "llm", "merge", "respond", "after_merge"]
RESUMED_LLM_PHASE = ["normalize", "llm", "merge", "respond", "after_merge"]


class AfterMergeStage:
    """A stage added after merge (`DOCGATE_EXTRA_STAGES`): the llm phase runs it too, not knowing its name."""

    name = "after_merge"

    def run(self, ctx: JobContext) -> None:
        ctx.artifacts["after_merge"] = len(ctx.findings)


def contract_model_answer(recorded: Recorded) -> Scripted:
    """A model that says no to the safety question and finds two clauses, quoting the contract."""
    if recorded.body.get("logprobs"):
        no = [{"token": "No", "logprob": -0.05}, {"token": "Yes", "logprob": -3.0}]
        return completion("No", logprobs={"content": [{"token": "No", "logprob": -0.05, "top_logprobs": no}]})
    findings = [{"label": label, "evidence": quote} for label, quote in CLAUSES.items()]
    return completion(json.dumps({"findings": findings}, ensure_ascii=False))


@pytest.fixture
def model(settings: Any) -> Iterator[ScriptedServer]:
    """A model that answers, asked every question it applies to; a stage added after merge."""
    with scripted_server() as server:
        server.count_chars_as_tokens, server.fallback = True, contract_model_answer
        settings.LLM_ENABLED, settings.LLM_POLICY, settings.LLM_DRAFTS = True, "always", False
        settings.LLM_BASE_URL, settings.LLM_ENGINE, settings.LLM_MAX_RETRIES = server.base_url, "llamacpp", 0
        settings.DOCGATE_EXTRA_STAGES = [f"{__name__}.AfterMergeStage"]
        yield server


@contextmanager
def stages_recorded() -> Iterator[list[str]]:
    """The names of the stages that run, in order, whatever list of stages a run builds."""
    ran: list[str] = []

    def recording(original: Any) -> Any:
        def run(stage: Any, ctx: JobContext) -> None:
            ran.append(stage.name)
            original(stage, ctx)

        return run

    with ExitStack() as stack:
        for cls in {type(stage) for stage in pipeline_stages()}:
            stack.enter_context(mock.patch.object(cls, "run", recording(cls.run)))
        yield ran


def submit(organisation: Organisation) -> Job:
    submission = Submission(kind="contract", source="api", text=CONTRACT)
    return document_submit(organisation=organisation, submission=submission).job


def rules_phase(job: Job) -> None:
    assert job_run(job.pk, "rules-worker").status == JobState.PROVISIONAL


def llm_phase(job: Job) -> Result:
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status in (JobState.DONE, JobState.NEEDS_REVIEW)
    job.refresh_from_db()
    return Result.objects.filter(job=job).order_by("-version")[0]


def test_the_llm_phase_runs_normalize_and_the_stages_after_plan_only(actors: Any, model: ScriptedServer) -> None:
    job = submit(actors.acme)
    with stages_recorded() as ran:
        rules_phase(job)
        assert ran == RULES_PHASE
        ran.clear()
        result = llm_phase(job)
    assert ran == RESUMED_LLM_PHASE, "extract, rules, gate and plan ran once, in the rules phase"
    assert model.chat_bodies(), "the model was asked"
    assert {q["question"] for q in result.provenance["llm"]["plan"]["asked"]} == {"gate", "clauses"}
    assert result.data["gate"]["llm_status"] == "used"
    both = {f["label"] for f in result.data["findings"] if f.get("provenance") == "both"}
    assert both == set(CLAUSES), "the model's clauses merged with the restored rule findings"
    assert set(result.provenance["stages"]) == set(RULES_PHASE)
    stored = job.artifacts[RULE_OUTPUTS]
    assert stored["format"] == RULE_OUTPUTS_FORMAT and stored["plan"] == result.provenance["llm"]["plan"]
    merged_keys = {"provenance", "agreement", "llm_evidence", "llm_span", "conflict"}
    assert not [f for f in stored["findings"] if merged_keys & set(f)], "stored before the merge changed them"
    assert all(f["source"] == "rule" for f in stored["findings"])


def test_a_job_without_stored_rule_outputs_runs_every_stage_and_ends_as_a_resumed_one(
    actors: Any, model: ScriptedServer
) -> None:
    resumed, older = submit(actors.acme), submit(actors.globex)  # one text, two organisations: no de-duplication
    rules_phase(resumed)
    rules_phase(older)
    # As a worker from before the llm phase resumed left it: its artifacts hold no rule outputs.
    older.refresh_from_db()
    artifacts = dict(older.artifacts)
    del artifacts[RULE_OUTPUTS]
    Job.objects.filter(pk=older.pk).update(artifacts=artifacts)
    with stages_recorded() as ran:
        resumed_result = llm_phase(resumed)
        assert ran == RESUMED_LLM_PHASE
        ran.clear()
        older_result = llm_phase(older)
    assert ran == RULES_PHASE, "no stored outputs: every stage runs again"
    assert resumed_result.data == older_result.data
    for key in ("rule_packs", "stages"):
        assert resumed_result.provenance[key] == older_result.provenance[key]
    assert resumed_result.provenance["llm"]["plan"] == older_result.provenance["llm"]["plan"]
    assert older.artifacts[RULE_OUTPUTS] == resumed.artifacts[RULE_OUTPUTS], "the full run stored them for a re-run"


def test_a_rerun_after_an_outage_resumes_from_the_stored_rule_outputs(
    actors: Any, model: ScriptedServer, settings: Any
) -> None:
    from tests.load.run_load import free_port  # the conftest's way to find a port where nothing listens

    job = submit(actors.acme)
    rules_phase(job)
    answering, settings.LLM_BASE_URL = settings.LLM_BASE_URL, f"http://127.0.0.1:{free_port()}/v1"
    settings.DOCGATE_LLM_WAIT_MAX_S = 0.0  # the model is down and the wait is over: rules only, to review
    llm_phase(job)
    assert job.state == JobState.NEEDS_REVIEW and "llm_unavailable" in job.review_reasons
    job_llm_rerun(job_id=job.pk, organisation=actors.acme, user=None)
    settings.LLM_BASE_URL = answering  # the model is back
    with stages_recorded() as ran:
        result = llm_phase(job)
    assert ran == RESUMED_LLM_PHASE
    assert not job.degraded and "llm_unavailable" not in job.review_reasons
    assert {f["label"] for f in result.data["findings"] if f.get("provenance") == "both"} == set(CLAUSES)


class Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, ctx: JobContext) -> None:
        raise AssertionError("not run here")


@pytest.mark.parametrize(
    ("stages", "artifacts", "resumes"),
    [
        (["extract", "normalize", "plan", "llm", "merge", "new"], {"format": RULE_OUTPUTS_FORMAT}, True),
        (["extract", "normalize", "plan", "llm"], None, False),
        (["extract", "normalize", "plan", "llm"], {"format": RULE_OUTPUTS_FORMAT - 1}, False),
        (["flaky"], {"format": RULE_OUTPUTS_FORMAT}, False),
    ],
    ids=["stored-outputs", "none-stored", "older-format", "no-plan-stage"],
)
def test_what_an_llm_phase_resumes_from(stages: list[str], artifacts: dict[str, Any] | None, resumes: bool) -> None:
    resume = resume_from([Named(name) for name in stages], None if artifacts is None else {RULE_OUTPUTS: artifacts})
    assert (resume is not None) == resumes
    if resume is not None:
        assert [s.name for s in resume.rerun] == ["normalize"]
        assert [s.name for s in resume.remaining] == stages[stages.index("plan") + 1 :]
