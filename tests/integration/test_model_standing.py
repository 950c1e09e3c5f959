"""The model earns its place: its answers are counted (valid, grounded, agreed with the final result), a question it
answers badly stops being asked for the organisation and is probed again, and an answer that fails never sends a
rule result to review. Against a scripted model on a real socket that says exactly what each test needs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, LLMAnswer, LLMProbe, Result, ReviewTask
from contracts.pipeline import job_run
from contracts.review.workflow import review_finding_decide, review_task_claim, review_task_finalize
from contracts.standing.policy import probe_claim
from rules.tickets.taxonomy import load_taxonomy
from tests.api.test_review_concurrency import at_once
from tests.inference.fake_server import Recorded, Scripted, ScriptedServer, completion, scripted_server
from tests.learned_models import adapter_activate

pytestmark = pytest.mark.django_db

TICKET = "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"
CONTRACT = (
    "第一条 合同期限\n本合同自双方签字之日起生效，有效期两年。\n"
    "第二条 违约责任\n任何一方违约的，应向对方支付合同总价款百分之十的违约金。\n"
    "第三条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n"
)
SAFE = {"content": [{"token": "No", "logprob": -0.05, "top_logprobs": [{"token": "Yes", "logprob": -3.0}]}]}
NO_YES_OR_NO = {"content": [{"token": "嗯", "logprob": -0.1, "top_logprobs": [{"token": "好", "logprob": -2.0}]}]}


class Model:
    """What the scripted model says: to the policy question (`gate`) and to a structured question (`reply`); a
    question naming a model in `refused` is answered as vLLM answers for an adapter it does not serve."""

    def __init__(self) -> None:
        self.gate: dict[str, Any] = SAFE
        self.reply = json.dumps({"findings": []})
        self.refused: set[str] = set()

    def __call__(self, recorded: Recorded) -> Scripted:
        name = recorded.body.get("model")
        if name in self.refused:
            return Scripted(404, {"object": "error", "message": f"The model `{name}` does not exist.", "code": 404})
        if recorded.body.get("logprobs"):
            return completion("No", logprobs=self.gate)
        return completion(self.reply)


@pytest.fixture
def model(settings: Any) -> Iterator[tuple[Model, ScriptedServer]]:
    """The LLM stage on, every question asked, no QA sample (so that review reasons are the pipeline's alone)."""
    scripted = Model()
    with scripted_server() as server:
        server.count_chars_as_tokens, server.fallback = True, scripted
        settings.LLM_ENABLED = True
        settings.LLM_POLICY = "always"
        settings.LLM_BASE_URL = server.base_url
        settings.LLM_ENGINE = "llamacpp"
        settings.LLM_CONTEXT_TOKENS = 8192  # the server counts a token a character: room for the prompt
        settings.LLM_DRAFTS = False
        settings.LLM_MAX_RETRIES = 0
        settings.DOCGATE_QA_SAMPLE_RATE = 0.0
        yield scripted, server


def run(actors: Any, kind: str, text: str) -> tuple[Job, Result]:
    """Every run of a job: the rules, then the model's questions when the plan has any."""
    job = document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text)).job
    if job_run(job.pk, "standing-test").status == JobState.PROVISIONAL:
        job_run(job.pk, "standing-test", phase=JobPhase.LLM)
    job.refresh_from_db()
    return job, Result.objects.filter(job=job).order_by("-version")[0]


def rules_only_reasons(actors: Any, settings: Any, kind: str, text: str) -> list[str]:
    """The review reasons of the same document with the model off."""
    settings.LLM_ENABLED = False
    try:
        job, _ = run(actors, kind, text + "（规则）")
    finally:
        settings.LLM_ENABLED = True
    return list(job.review_reasons)


def plan_entry(result: Result, part: str, question: str) -> dict[str, Any] | None:
    """The plan's entry for `question` among its asked or skipped questions."""
    entries = result.provenance["llm"]["plan"][part]
    return next((q for q in entries if q["question"] == question), None)


@pytest.mark.parametrize(
    ("kind", "text", "reply", "task"),
    [
        ("contract", CONTRACT, "这不是JSON", "clauses"),  # does not parse: invalid
        # Parses, names a category, and quotes words the ticket does not hold: ungrounded.
        ("ticket", TICKET, "ungrounded", "ticket_category"),
    ],
    ids=["invalid", "ungrounded"],
)
def test_a_model_that_fails_to_answer_adds_no_review_reason_and_is_counted(
    actors: Any, settings: Any, model: tuple[Model, ScriptedServer], kind: str, text: str, reply: str, task: str
) -> None:
    scripted, _ = model
    if reply == "ungrounded":
        level1 = load_taxonomy().level1_names[0]
        answer = {"level1": level1, "level2": "", "level3": "", "urgency": "normal", "evidence": "市民来电称路灯不亮"}
        reply = json.dumps(answer, ensure_ascii=False)
    scripted.reply = reply
    baseline = rules_only_reasons(actors, settings, kind, text)
    job, _ = run(actors, kind, text)
    assert job.review_reasons == baseline
    (row,) = LLMAnswer.objects.filter(job=job, task=task)
    assert (row.valid, row.grounded) == ((False, False) if task == "clauses" else (True, False))
    assert row.organisation_id == actors.acme.pk and row.model == settings.LLM_MODEL
    # The safety question was answered "no" about a text the rules allow: counted as valid, grounded, agreeing.
    gate = LLMAnswer.objects.get(job=job, task="gate")
    assert (gate.valid, gate.grounded, gate.agreed) == (True, True, True)


def test_answers_the_base_model_gave_for_an_adapter_the_server_lacks_count_for_the_base_model(
    actors: Any, settings: Any, tmp_path: Any, model: tuple[Model, ScriptedServer]
) -> None:
    scripted, server = model
    adapter = adapter_activate(settings, tmp_path)
    scripted.refused = {adapter}
    job, result = run(actors, "ticket", TICKET)
    named = [r.body["model"] for r in server.requests if r.path.endswith("/chat/completions")]
    assert named[0] == adapter and len(named) > 1 and set(named[1:]) == {settings.LLM_MODEL}
    answers = LLMAnswer.objects.filter(job=job)
    assert answers.exists() and set(answers.values_list("model", flat=True)) == {settings.LLM_MODEL}
    assert result.provenance["llm"]["model"] == settings.LLM_MODEL


def test_a_valid_grounded_answer_that_disagrees_sends_the_ticket_to_review_and_the_review_judges_it(
    actors: Any, settings: Any, model: tuple[Model, ScriptedServer]
) -> None:
    scripted, _ = model
    settings.LLM_ENABLED = False
    _, rules_result = run(actors, "ticket", TICKET + "（规则）")
    settings.LLM_ENABLED = True
    rules_label = next(f["label"] for f in rules_result.data["findings"] if f["kind"] == "ticket_category")
    other = next(name for name in load_taxonomy().level1_names if name != rules_label)
    answer = {"level1": other, "level2": "", "level3": "", "urgency": "normal", "evidence": "排油烟，噪音也很大"}
    scripted.reply = json.dumps(answer, ensure_ascii=False)
    job, result = run(actors, "ticket", TICKET)
    assert job.state == JobState.NEEDS_REVIEW and "conflict" in job.review_reasons
    row = LLMAnswer.objects.get(job=job, task="ticket_category")
    assert (row.valid, row.grounded, row.agreed) == (True, True, False)
    # The reviewer sides with the model: its answer now agrees with the final result.
    task = ReviewTask.objects.get(job=job)
    categories = [f for f in result.data["findings"] if f["kind"] == "ticket_category"]
    review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    for finding in categories:
        decision = "approve" if finding["source"] == "llm" else "reject"
        review_finding_decide(
            task_id=task.pk, user=actors.rita, organisation=actors.acme, finding_id=finding["id"], decision=decision
        )
    review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    row.refresh_from_db()
    assert row.agreed is True


def test_below_the_floor_a_question_is_rules_only_by_policy_probed_again_and_asked_once_it_earns_its_place(
    actors: Any, settings: Any, model: tuple[Model, ScriptedServer], client: Any, scrape: Any
) -> None:
    scripted, server = model
    settings.LLM_STANDING_WINDOW = 2
    settings.LLM_STANDING_MIN_ANSWERS = 2
    settings.LLM_STANDING_FLOOR = 0.5
    settings.LLM_STANDING_PROBE_EVERY = 3
    settings.LLM_STANDING_PROBE_AFTER_S = 0
    scripted.gate = NO_YES_OR_NO  # the policy question gets no yes/no: invalid

    def gate_questions() -> int:
        return sum(1 for body in server.chat_bodies() if body.get("logprobs"))

    results = []
    for n in range(1, 5):
        asked_before = gate_questions()
        _, result = run(actors, "ticket", f"{TICKET}（第{n}次）")
        results.append(result)
        # Two invalid answers, then the gate question is not asked: no request reaches the model for it.
        assert gate_questions() - asked_before == (1 if n <= 2 else 0)
    for result in results[2:]:
        skipped = plan_entry(result, "skipped", "gate")
        assert skipped is not None and "rules-only by policy" in skipped["reason"]
        assert result.data["gate"]["llm_status"] == "off"
    body = client.get("/readyz").json()
    (gate,) = [s for s in body["llm_standing"] if s["task"] == "gate"]
    assert (gate["organisation"], gate["state"], gate["valid"]) == ("acme", "rules_only", 0.0)
    metrics = scrape().content.decode()
    assert f'docgate_llm_task_rules_only{{model="{settings.LLM_MODEL}",organisation="acme",task="gate"}} 1.0' in metrics

    # The third document that would have asked it probes the model, which now answers well...
    scripted.gate = SAFE
    _, probed = run(actors, "ticket", f"{TICKET}（第5次）")
    asked = plan_entry(probed, "asked", "gate")
    assert asked is not None and "probe" in asked["reason"]
    assert probed.data["gate"]["llm_status"] == "used"
    # ... and is back at the floor: asked as planned again.
    _, after = run(actors, "ticket", f"{TICKET}（第6次）")
    asked = plan_entry(after, "asked", "gate")
    assert asked is not None and asked["reason"] == "policy always"
    (gate,) = [s for s in client.get("/readyz").json()["llm_standing"] if s["task"] == "gate"]
    assert gate["state"] == "asked"
    assert f'docgate_llm_task_rules_only{{model="{settings.LLM_MODEL}",organisation="acme",task="gate"}} 0.0' in (
        scrape().content.decode()
    )


def test_a_job_planned_before_the_model_fell_below_the_floor_skips_the_question_when_its_turn_comes(
    actors: Any, settings: Any, model: tuple[Model, ScriptedServer]
) -> None:
    scripted, server = model
    settings.LLM_STANDING_WINDOW = settings.LLM_STANDING_MIN_ANSWERS = 2
    settings.LLM_STANDING_FLOOR = 0.5
    scripted.gate = NO_YES_OR_NO
    # A batch: every ticket is planned (its rules run) before the model answers any of them.
    jobs = []
    for n in range(3):
        submission = Submission(kind="ticket", source="api", text=f"{TICKET}（第{n}件）")
        job = document_submit(organisation=actors.acme, submission=submission).job
        assert job_run(job.pk, "standing-test").status == JobState.PROVISIONAL
        jobs.append(job)
    asked = []
    for job in jobs:
        before = len(server.chat_bodies())
        job_run(job.pk, "standing-test", phase=JobPhase.LLM)
        asked.append(len(server.chat_bodies()) - before)
    assert asked[0] > 0 and asked[1] > 0 and asked[2] == 0, asked
    last = Result.objects.filter(job=jobs[2]).order_by("-version")[0]
    skipped = plan_entry(last, "skipped", "gate")
    assert skipped is not None and "when its turn came" in skipped["reason"]
    assert Job.objects.get(pk=jobs[2].pk).state == JobState.DONE


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_concurrent_plans_take_one_probe_per_turn_and_lose_no_skip(
    actors: Any, settings: Any, real_services: Any
) -> None:
    settings.LLM_STANDING_PROBE_EVERY = 4
    settings.LLM_STANDING_PROBE_AFTER_S = 0
    # Eight workers planning at once, each for a document that would ask the benched question.
    outcomes = at_once([partial(probe_claim, actors.acme.pk, "clauses", "m") for _ in range(8)])
    assert outcomes.count(True) == 2 and outcomes.count(False) == 6, outcomes
    assert LLMProbe.objects.get(organisation=actors.acme, task="clauses", model="m").skipped == 0


def test_answers_beyond_every_readable_window_are_forgotten_by_beat(actors: Any, settings: Any) -> None:
    """Beat's retention keeps, per organisation, question and model, the newest LLM_ANSWER_WINDOWS_KEPT windows of
    answers (what a widened window could still read) and deletes the older ones; the standing is unchanged."""
    from contracts.retention import LLM_ANSWER_WINDOWS_KEPT
    from contracts.standing.policy import task_standing
    from tests.api.test_idempotency_and_listing import _beat_runs

    settings.LLM_STANDING_WINDOW = 3
    keep = LLM_ANSWER_WINDOWS_KEPT * 3

    def answers(organisation: Any, task: str, model: str, count: int) -> list[int]:
        rows = [
            LLMAnswer(organisation=organisation, task=task, model=model, valid=True, grounded=True, agreed=n % 2 == 0)
            for n in range(count)
        ]
        return [row.pk for row in LLMAnswer.objects.bulk_create(rows)]

    old_clauses = answers(actors.acme, "clauses", "gemma", keep + 4)
    few_categories = answers(actors.acme, "ticket_category", "gemma", 2)
    other_model = answers(actors.acme, "clauses", "gemma:acme", keep + 1)
    other_organisation = answers(actors.globex, "clauses", "gemma", keep)
    before = task_standing(actors.acme.pk, "clauses", "gemma")

    assert _beat_runs("contracts.tasks.llm_answers_expire_task") == 4 + 1
    left = set(LLMAnswer.objects.values_list("pk", flat=True))
    assert left == set(old_clauses[4:]) | set(few_categories) | set(other_model[1:]) | set(other_organisation)
    assert task_standing(actors.acme.pk, "clauses", "gemma") == before
    assert _beat_runs("contracts.tasks.llm_answers_expire_task") == 0
