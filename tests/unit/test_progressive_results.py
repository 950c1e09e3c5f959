"""Progressive results: the rules' result is published as provisional, the model's questions run as a second task,
and while the model is down a job waits (bounded) instead of going to review at once."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, Result, ReviewTask, WebhookDelivery
from contracts.pipeline import job_run
from contracts.webhooks.endpoints import webhook_endpoint_configure

pytestmark = pytest.mark.django_db

TICKET = "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"


@pytest.fixture
def llm_down(llm_down: None, settings: Any) -> None:
    """The model down (tests/conftest.py), and webhooks allowed to the local receiver."""
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True


def submit(actors: Any, text: str = TICKET, kind: str = "ticket") -> Job:
    return document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text)).job


def test_the_rules_result_is_published_as_provisional_and_the_model_questions_are_queued(
    actors: Any, llm_down: None
) -> None:
    webhook_endpoint_configure(
        organisation=actors.acme, user=None, url="http://127.0.0.1:9/hook", provisional_events=True
    )
    job = submit(actors)
    outcome = job_run(job.pk, "rules-worker")
    assert outcome.status == JobState.PROVISIONAL
    job.refresh_from_db()
    assert (job.state, job.phase, job.attempts) == (JobState.PROVISIONAL, JobPhase.LLM, 1)
    [provisional] = Result.objects.filter(job=job)
    assert provisional.final is False and provisional.version == 1
    assert any(f["kind"] == "ticket_category" and f["source"] == "rule" for f in provisional.data["findings"])
    plan = provisional.provenance["llm"]["plan"]
    assert plan["policy"] == "always" and {q["question"] for q in plan["asked"]} >= {"gate", "ticket_category"}
    # Review and result.final wait for the final result; only the provisional event (asked for) is recorded.
    assert not ReviewTask.objects.filter(job=job).exists()
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["result.provisional"]
    assert job_run(job.pk, "rules-worker").status == "not_claimed", "a second rules delivery does nothing"


def test_a_job_waits_for_a_model_that_is_down_then_goes_to_review_when_the_wait_is_over(
    actors: Any, llm_down: None, settings: Any
) -> None:
    job = submit(actors)
    job_run(job.pk, "rules-worker")
    waiting = job_run(job.pk, "llm-worker", phase=JobPhase.LLM)
    assert waiting.status == "waiting" and waiting.retry_after_s >= 5
    job.refresh_from_db()
    assert job.state == JobState.PROVISIONAL and job.llm_waiting_since is not None
    assert job.attempts == 1, "a wait for the model is not a failed attempt"
    assert job.error is not None and job.error["code"] == "llm_unavailable"
    assert Result.objects.filter(job=job).count() == 1, "the provisional result stays what callers see"
    since = job.llm_waiting_since
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status == "waiting"
    job.refresh_from_db()
    assert job.llm_waiting_since == since, "the wait is counted from the first outage"

    settings.DOCGATE_LLM_WAIT_MAX_S = 0.0  # the wait is over
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status == JobState.NEEDS_REVIEW
    job.refresh_from_db()
    assert job.degraded and "llm_unavailable" in job.review_reasons and job.llm_waiting_since is None
    final = Result.objects.get(job=job, version=2)
    assert final.final is True and final.data["degraded"] is True
    assert ReviewTask.objects.filter(job=job).count() == 1


def test_waiting_jobs_are_counted_in_metrics(actors: Any, llm_down: None, scrape: Any) -> None:
    job = submit(actors)
    job_run(job.pk, "rules-worker")
    job_run(job.pk, "llm-worker", phase=JobPhase.LLM)
    metrics = scrape().content.decode()
    assert "docgate_jobs_waiting_for_llm 1.0" in metrics
    assert 'docgate_jobs{state="provisional"} 1.0' in metrics


def test_with_the_model_off_a_job_is_final_in_one_run(actors: Any) -> None:
    job = submit(actors)
    assert job_run(job.pk, "rules-worker").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    [result] = Result.objects.filter(job=job)
    assert result.final is True
    assert result.provenance["llm"] == {"enabled": False, "plan": {"policy": "off", "asked": [], "skipped": []}}


def acme_admin(actors: Any) -> Any:
    from django.contrib.auth import get_user_model

    from contracts.models import Membership, Role

    ada = get_user_model().objects.create_user("ada", password="ada-password-1")
    Membership.objects.create(user=ada, organisation=actors.acme, role=Role.ADMIN)
    return ada


def _degraded_job(actors: Any, settings: Any) -> Job:
    """A job that waited past DOCGATE_LLM_WAIT_MAX_S for a model that stayed down: in review, llm_unavailable."""
    job = submit(actors)
    job_run(job.pk, "rules-worker")
    settings.DOCGATE_LLM_WAIT_MAX_S = 0.0
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status == JobState.NEEDS_REVIEW
    return job


def test_an_admin_sends_a_degraded_job_back_to_the_model_through_the_api(
    actors: Any, llm_down: None, settings: Any
) -> None:
    from rest_framework.test import APIClient

    from contracts.models import AuditEvent

    job = _degraded_job(actors, settings)
    url = f"/api/v1/jobs/{job.pk}/llm-rerun/"
    reviewer, admin = APIClient(), APIClient()
    reviewer.force_login(actors.rita)
    admin.force_login(acme_admin(actors))
    assert reviewer.post(url).status_code == 403, "admins only"
    answer = admin.post(url)
    assert answer.status_code == 202, answer.content
    assert answer.json()["state"] == "provisional" and answer.json()["phase"] == "llm"
    job.refresh_from_db()
    assert job.attempts == 0 and not job.degraded and job.review_reasons == []
    assert not ReviewTask.objects.filter(job=job).exists(), "the open review task is withdrawn"
    assert {"review.withdrawn", "job.llm_rerun"} <= set(AuditEvent.objects.values_list("action", flat=True))
    again = admin.post(url)
    assert again.status_code == 409 and again.json()["error"]["code"] == "not_rerunnable"
    # The model is still down: the re-run waits, and once the wait is over it ends as a new version.
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status == JobState.NEEDS_REVIEW
    assert list(Result.objects.filter(job=job).values_list("version", "final")) == [(3, True), (2, True), (1, False)]


def test_a_finalized_review_is_not_overwritten_by_a_rerun(actors: Any, llm_down: None, settings: Any) -> None:
    from contracts.models import ReviewState
    from contracts.rerun import RerunRefused, job_llm_rerun

    job = _degraded_job(actors, settings)
    ReviewTask.objects.filter(job=job).update(state=ReviewState.FINALIZED)
    with pytest.raises(RerunRefused) as refused:
        job_llm_rerun(job_id=job.pk, organisation=actors.acme, user=acme_admin(actors))
    assert refused.value.code == "review_finalized"


def test_the_portal_shows_a_provisional_result_a_waiting_job_and_the_rerun_button(
    actors: Any, llm_down: None, settings: Any, client: Any
) -> None:
    client.force_login(acme_admin(actors))
    job = submit(actors)
    job_run(job.pk, "rules-worker")
    job_run(job.pk, "llm-worker", phase=JobPhase.LLM)
    page = client.get(f"/documents/{job.document_id}/").content.decode()
    assert 'data-testid="provisional"' in page and 'data-testid="waiting-for-llm"' in page
    assert "data-reload-while-running" in page, "the page refreshes itself until the final result"
    listed = client.get("/jobs/", {"waiting": "on"}).content.decode()
    assert str(job.pk) in listed and 'data-testid="waiting-for-llm"' in listed
    other = submit(actors, "路灯不亮已经两个星期了，晚上行人很不安全。")
    assert str(other.pk) not in listed and str(other.pk) in client.get("/jobs/").content.decode()

    settings.DOCGATE_LLM_WAIT_MAX_S = 0.0
    job_run(job.pk, "llm-worker", phase=JobPhase.LLM)
    page = client.get(f"/documents/{job.document_id}/").content.decode()
    assert 'data-testid="provisional"' not in page and 'data-testid="llm-rerun"' in page
    answer = client.post(f"/jobs/{job.pk}/llm-rerun/")
    assert answer.status_code == 302
    job.refresh_from_db()
    assert job.state == JobState.PROVISIONAL
