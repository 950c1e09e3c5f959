"""Every reply is checked before it goes out: DocGate's own names the department, the step and the time limit and
passes; a model's form letter goes to review with the reasons and their evidence; a reviewer's edit is checked on
the review page and in the API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import JobPhase, JobState, ReviewTask
from contracts.pipeline import job_run
from tests.frontend.test_portal import signed_in
from tests.inference.fake_server import Recorded, Scripted, ScriptedServer, completion, scripted_server
from tests.learned_models import adapter_activate

pytestmark = pytest.mark.django_db

TICKET = "我住在A市B区幸福路12号，楼下烧烤店每天晚上油烟很大，熏得家里没法开窗，多次反映至今未解决，请环保部门处理。"
FORM_LETTER = "您好！您反映的问题已收悉，我们将尽快核实并转交相关部门办理，办理结果将及时答复您。"
SAFE = {"content": [{"token": "No", "logprob": -0.05, "top_logprobs": [{"token": "Yes", "logprob": -3.0}]}]}


def _model(recorded: Recorded) -> Scripted:
    """Answers the policy question "no", the category question with the rules' own, and drafts a form letter."""
    if recorded.body.get("logprobs"):
        return completion("No", logprobs=SAFE)
    prompt = json.dumps(recorded.body, ensure_ascii=False)
    if "答复撰写助手" in prompt:
        return completion(json.dumps({"draft": FORM_LETTER, "evidence": []}, ensure_ascii=False))
    return completion(json.dumps({"findings": [{"label": "环境保护", "evidence": "油烟很大"}]}, ensure_ascii=False))


@pytest.fixture
def drafting_model(settings: Any) -> Iterator[ScriptedServer]:
    with scripted_server() as server:
        server.count_chars_as_tokens, server.fallback = True, _model
        settings.LLM_ENABLED, settings.LLM_POLICY, settings.LLM_DRAFTS = True, "always", True
        settings.LLM_BASE_URL, settings.LLM_ENGINE, settings.LLM_MAX_RETRIES = server.base_url, "llamacpp", 0
        settings.LLM_CONTEXT_TOKENS = 8192
        yield server


def _submit(actors: Any, text: str = TICKET) -> Any:
    return document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text))


def test_docgates_own_reply_names_the_matter_department_step_and_time_and_passes(actors: Any) -> None:
    outcome = _submit(actors)
    job_run(outcome.job.pk, "reply-test")
    data = outcome.document.latest_result().data
    reply, response = data["suggested_response"], data["response"]
    assert response["source"] == "template" and response["check"] == []
    assert "油烟很大" in reply and response["department"] in reply and "个工作日内" in reply
    assert not [r for r in data["review_reasons"] if r.startswith("reply_")]


def test_a_drafted_form_letter_goes_to_review_with_each_reason_and_its_evidence(
    actors: Any, drafting_model: ScriptedServer
) -> None:
    outcome = _submit(actors)
    assert job_run(outcome.job.pk, "reply-test").status == JobState.PROVISIONAL
    assert job_run(outcome.job.pk, "reply-test", phase=JobPhase.LLM).status == JobState.NEEDS_REVIEW
    data = outcome.document.latest_result().data
    assert data["suggested_response"] == FORM_LETTER and data["response"]["source"] == "llm"
    assert data["response"]["status"] == "pending_review"
    codes = [problem["code"] for problem in data["response"]["check"]]
    assert codes == ["reply_no_department", "reply_no_time", "reply_boilerplate"]
    assert set(codes) <= set(data["review_reasons"])


def test_the_outgoing_check_asks_the_model_that_drafted_the_reply(
    actors: Any, drafting_model: ScriptedServer, settings: Any, tmp_path: Any
) -> None:
    """With an active adapter every question of the job names it: the policy question about the draft too."""
    adapter = adapter_activate(settings, tmp_path)
    outcome = _submit(actors)
    job_run(outcome.job.pk, "reply-test")
    job_run(outcome.job.pk, "reply-test", phase=JobPhase.LLM)
    assert outcome.document.latest_result().data["response"]["source"] == "llm"
    chats = [r.body for r in drafting_model.requests if r.path.endswith("/chat/completions")]
    policy = [body for body in chats if body.get("logprobs")]
    assert len(policy) == 2  # about the ticket, then about the drafted reply
    assert {body["model"] for body in chats} == {adapter}


def test_a_reviewers_edit_is_checked_on_the_review_page_and_in_the_api(client: Any, actors: Any) -> None:
    outcome = _submit(actors, "小区门口的路灯坏了半个月，晚上出行很不安全，请尽快修理。我的电话13812345678。")
    job_run(outcome.job.pk, "reply-test")
    if not ReviewTask.objects.filter(document=outcome.document).exists():
        from contracts.review.workflow import review_task_open

        outcome.job.refresh_from_db()
        review_task_open(job=outcome.job, reasons=["qa_sample"])
    task = ReviewTask.objects.get(document=outcome.document)  # its citizen's number holds the reply for review
    signed_in(client, actors.rita)
    client.post(f"/review/{task.pk}/claim/")
    client.post(f"/review/{task.pk}/response/", {"text": FORM_LETTER + "请联系13812345678。"})
    page = client.get(f"/review/{task.pk}/").content.decode()
    assert 'data-testid="reply-check"' in page and "答复未写明办理时限" in page
    assert 'data-code="reply_contact_leak"' in page
    detail = client.get(f"/api/v1/reviews/{task.pk}/").json()
    assert {p["code"] for p in detail["response_check"]} >= {"reply_no_time", "reply_contact_leak"}
    good = "您好！您反映的小区门口路灯损坏问题已转交市城市管理局，将于3个工作日内派员维修路灯，修复后答复您。"
    client.post(f"/review/{task.pk}/response/", {"text": good})
    assert client.get(f"/api/v1/reviews/{task.pk}/").json()["response_check"] == []
    assert 'data-testid="reply-check-ok"' in client.get(f"/review/{task.pk}/").content.decode()
