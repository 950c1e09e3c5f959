"""Review workflow over the API: Rita claims, decides each finding, edits the response and finalizes result v2."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from contracts.models import (
    AuditEvent,
    Document,
    Job,
    JobState,
    Result,
    ReviewState,
    ReviewTask,
    WebhookDelivery,
    WebhookEndpoint,
)
from contracts.pipeline import job_run, pipeline_stages
from contracts.review.workflow import review_task_open
from contracts.stages.base import JobContext

pytestmark = pytest.mark.django_db

URL = "/api/v1/reviews/"
TICKET = "我家小区门口的垃圾站臭气熏天，已经反映三次了，请尽快处理。物业说要收5000元清运费。"
FINDINGS: list[dict[str, Any]] = [
    {"id": "F1", "kind": "clause", "label": "违约金", "span": [0, 6], "confidence": 0.55, "source": "rule"},
    {
        "id": "F2",
        "kind": "ticket_category",
        "label": "城乡建设",
        "level2": "物业管理",
        "department": "住建局",
        "confidence": 0.41,
        "source": "rule",
    },
    {"id": "F3", "kind": "entity", "label": "MONEY", "span": [34, 39], "text": "5000元", "source": "rule"},
]


def needs_review_task(
    actors: Any,
    *,
    reasons: Sequence[str] = ("low_confidence",),
    text: str = TICKET,
    suggested_response: str | None = "您好，您反映的问题已转交相关部门处理。",
) -> ReviewTask:
    """A ticket whose job ended needs_review with result v1 (three findings F1..F3) and its open review task."""
    document = Document.objects.create(
        organisation=actors.acme,
        kind="ticket",
        source="api",
        content_type="text/plain",
        size_bytes=len(text.encode()),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        encoding="utf-8",
        text=text,
        reference="T-2026-0042",
    )
    job = Job.objects.create(
        organisation=actors.acme,
        document=document,
        state=JobState.NEEDS_REVIEW,
        attempts=1,
        finished_at=timezone.now(),
        review_reasons=list(reasons),
    )
    result = Result.objects.create(
        organisation=actors.acme,
        document=document,
        job=job,
        version=1,
        data={
            "kind": "ticket",
            "findings": [dict(finding) for finding in FINDINGS],
            "review_reasons": list(reasons),
            "suggested_response": suggested_response,
        },
        provenance={"stages": ["extract", "normalize", "rules"], "rule_packs": {"tickets": "2026.11"}},
    )
    return review_task_open(job=job, reasons=list(reasons), result=result)


def signed_in(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_reviewer_corrects_a_finding_and_finalizes_and_result_v2_is_served(actors: Any, acme_api: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)

    queue = rita.get(URL).json()
    assert [row["id"] for row in queue["results"]] == [str(task.pk)]
    assert rita.post(f"{URL}{task.pk}/claim/").status_code == 200
    decisions: list[tuple[str, str, dict[str, Any]]] = [
        ("F1", "approve", {}),
        ("F2", "correct", {"corrected": {"level2": "环境卫生", "department": "城管局"}, "note": "垃圾站归城管"}),
        ("F3", "reject", {"note": "不是金额争议"}),
    ]
    for finding_id, decision, extra in decisions:
        response = rita.post(
            f"{URL}{task.pk}/decisions/", {"finding_id": finding_id, "decision": decision, **extra}, format="json"
        )
        assert response.status_code == 200, response.json()
    edited = "您好，垃圾站问题已转城管局处理，三个工作日内答复。"
    assert rita.post(f"{URL}{task.pk}/response/", {"text": edited}, format="json").status_code == 200

    finalized = rita.post(f"{URL}{task.pk}/finalize/")
    assert finalized.status_code == 200, finalized.json()
    assert finalized.json()["result"]["version"] == 2
    assert finalized.json()["task"]["state"] == "finalized"

    served = acme_api.get(f"/api/v1/documents/{task.document_id}/result/").json()
    assert served["version"] == 2
    findings = {finding["id"]: finding for finding in served["data"]["findings"]}
    assert findings["F1"]["review"] == "approved"
    assert findings["F2"] == {
        **FINDINGS[1],
        "level2": "环境卫生",
        "department": "城管局",
        "review": "corrected",
        "original": {"level2": "物业管理", "department": "住建局"},
        "review_note": "垃圾站归城管",
    }
    assert "F3" not in findings
    assert [f["id"] for f in served["data"]["rejected_findings"]] == ["F3"]
    assert served["data"]["suggested_response"] == edited
    assert served["data"]["reviewed_by"] == "rita"
    assert served["provenance"]["rule_packs"] == {"tickets": "2026.11"}
    assert served["provenance"]["review_task"] == str(task.pk)
    assert acme_api.get(f"/api/v1/documents/{task.document_id}/").json()["job"]["state"] == "done"
    assert Result.objects.get(document=task.document, version=2).created_by == actors.rita
    assert Result.objects.get(document=task.document, version=1).data["findings"] == FINDINGS  # v1 untouched


def test_undecided_findings_are_kept_and_marked_unreviewed(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    rita.post(f"{URL}{task.pk}/decisions/", {"finding_id": "F1", "decision": "approve"}, format="json")
    data = rita.post(f"{URL}{task.pk}/finalize/").json()["result"]["data"]
    assert [(f["id"], f["review"]) for f in data["findings"]] == [
        ("F1", "approved"),
        ("F2", "unreviewed"),
        ("F3", "unreviewed"),
    ]
    assert data["rejected_findings"] == []
    assert data["suggested_response"] == "您好，您反映的问题已转交相关部门处理。"  # taken from v1 when not edited


def test_queue_lists_gate_holds_first_then_uncertainty_and_finalized_last(actors: Any) -> None:
    qa = needs_review_task(actors, reasons=["qa_sample"], text=TICKET + "一")
    uncertain = needs_review_task(actors, reasons=["low_confidence"], text=TICKET + "二")
    blocked = needs_review_task(actors, reasons=["low_confidence", "gate_block"], text=TICKET + "三")
    conflict = needs_review_task(actors, reasons=["conflict"], text=TICKET + "四")
    ReviewTask.objects.filter(pk=qa.pk).update(state=ReviewState.FINALIZED)
    rita = signed_in(actors.rita)

    rows = rita.get(URL).json()["results"]
    assert [row["id"] for row in rows] == [str(t.pk) for t in (blocked, conflict, uncertain, qa)]
    assert rows[0]["reasons"] == ["low_confidence", "gate_block"]
    assert rows[0]["priority"] > rows[1]["priority"] > rows[2]["priority"]
    open_only = rita.get(URL, {"state": "open"}).json()["results"]
    assert [row["id"] for row in open_only] == [str(t.pk) for t in (blocked, conflict, uncertain)]
    assert rita.get(URL, {"state": "bogus"}).status_code == 400


def test_detail_shows_text_findings_decisions_and_audit_trail(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    rita.post(f"{URL}{task.pk}/decisions/", {"finding_id": "F3", "decision": "reject", "note": "误报"}, format="json")

    detail = rita.get(f"{URL}{task.pk}/").json()
    assert detail["text"] == TICKET
    assert detail["reasons"] == ["low_confidence"]
    assert detail["claimed_by"] == "rita"
    assert detail["result"]["version"] == 1
    assert [f["id"] for f in detail["result"]["findings"]] == ["F1", "F2", "F3"]
    assert detail["response_text"] == "您好，您反映的问题已转交相关部门处理。"
    assert detail["decisions"] == [
        {
            "finding_id": "F3",
            "decision": "reject",
            "corrected": None,
            "note": "误报",
            "decided_by": "rita",
            "decided_at": detail["decisions"][0]["decided_at"],
        }
    ]
    assert [event["action"] for event in detail["audit"]] == [
        "review.opened",
        "review.claimed",
        "review.finding_decided",
    ]
    assert detail["audit"][1]["actor"] == "user:rita"


def test_every_review_action_is_audited_with_actor_time_before_and_after(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    rita.post(f"{URL}{task.pk}/decisions/", {"finding_id": "F1", "decision": "approve"}, format="json")
    rita.post(
        f"{URL}{task.pk}/decisions/",
        {"finding_id": "F1", "decision": "correct", "corrected": {"label": "定金"}},
        format="json",
    )
    rita.post(f"{URL}{task.pk}/response/", {"text": "已处理。"}, format="json")
    rita.post(f"{URL}{task.pk}/finalize/")

    events = list(AuditEvent.objects.filter(object_type="reviewtask", object_id=str(task.pk)).exclude(actor_user=None))
    assert [e.action for e in events] == [
        "review.claimed",
        "review.finding_decided",
        "review.finding_decided",
        "review.response_edited",
        "review.finalized",
    ]
    assert all(e.actor_user == actors.rita and e.created_at is not None for e in events)
    claim, first, second, edit, final = events
    assert claim.before == {"state": "open", "claimed_by": None, "claim_expires_at": None}
    assert (claim.after or {})["state"] == "claimed" and (claim.after or {})["claimed_by"] == "rita"
    assert first.before == {"finding_id": "F1", "decision": None}
    assert (first.after or {})["decision"] == "approve"
    # The later decision replaced the earlier one; the log keeps both.
    assert (second.before or {})["decision"] == "approve"
    assert (second.after or {})["decision"] == "correct" and (second.after or {})["corrected"] == {"label": "定金"}
    assert (edit.before or {})["response_text"] == "您好，您反映的问题已转交相关部门处理。"
    assert edit.after == {"response_text": "已处理。"}
    assert (final.before or {})["result_version"] == 1 and (final.after or {})["result_version"] == 2
    assert AuditEvent.objects.filter(action="job.done", object_id=str(task.job_id), actor_user=actors.rita).exists()
    assert task.decisions.get().decision == "correct"


def test_unknown_finding_and_bad_corrections_are_a_400(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    for payload, code in [
        ({"finding_id": "F99", "decision": "approve"}, "unknown_finding"),
        ({"finding_id": "F1", "decision": "maybe"}, "invalid"),
        ({"finding_id": "F1", "decision": "correct"}, "invalid_correction"),
        ({"finding_id": "F1", "decision": "correct", "corrected": {"id": "F7"}}, "invalid_correction"),
        ({"finding_id": "F1", "decision": "correct", "corrected": {"span": [3, 9999]}}, "invalid_correction"),
        ({"finding_id": "F1", "decision": "approve", "corrected": {"label": "x"}}, "invalid_correction"),
    ]:
        response = rita.post(f"{URL}{task.pk}/decisions/", payload, format="json")
        assert response.status_code == 400, payload
        assert response.json()["error"]["code"] == code
        assert response.json()["error"]["message"]
    assert not task.decisions.exists()


@pytest.mark.parametrize(
    ("finding_id", "corrected"),
    [
        ("F3", {"mentions": 1}),  # an entity's mentions are a list of places
        ("F1", {"occurrences": [5]}),  # a clause's occurrences are objects with spans
        ("F2", {"department": ["住建局"]}),  # a department is one name
        ("F1", {"label": 7}),
        ("F3", {"kind": "risk", "spans": 1}),  # the kind cannot be changed either
    ],
    ids=["entity-mentions", "clause-occurrences", "category-department", "label-number", "kind-and-spans"],
)
def test_a_correction_that_breaks_the_findings_type_is_a_400_and_the_pages_still_render(
    actors: Any, finding_id: str, corrected: dict[str, Any]
) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    payload = {"finding_id": finding_id, "decision": "correct", "corrected": corrected}
    response = rita.post(f"{URL}{task.pk}/decisions/", payload, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "invalid_correction"
    assert not task.decisions.exists()
    assert rita.get(f"/review/{task.pk}/").status_code == 200


def test_working_on_a_task_needs_a_claim(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    for path, payload in [
        ("decisions/", {"finding_id": "F1", "decision": "approve"}),
        ("response/", {"text": "x"}),
        ("finalize/", {}),
    ]:
        response = rita.post(f"{URL}{task.pk}/{path}", payload, format="json")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "claim_required"
    assert Result.objects.filter(document=task.document).count() == 1


def test_finalized_task_cannot_be_claimed_or_finalized_again(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    assert rita.post(f"{URL}{task.pk}/finalize/").status_code == 200
    for path in ("claim/", "finalize/"):
        response = rita.post(f"{URL}{task.pk}/{path}")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "already_finalized"
    assert Result.objects.filter(document=task.document).count() == 2


def test_release_puts_the_task_back_in_the_queue(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    released = rita.post(f"{URL}{task.pk}/release/").json()
    assert released["state"] == "open" and released["claimed_by"] is None
    assert AuditEvent.objects.filter(action="review.released", actor_user=actors.rita).exists()
    assert rita.post(f"{URL}{task.pk}/release/").json()["error"]["code"] == "claim_required"


def test_finalizing_records_one_signed_webhook_delivery_sent_after_commit(
    actors: Any, django_capture_on_commit_callbacks: Any
) -> None:
    WebhookEndpoint.objects.create(organisation=actors.acme, url="https://93.184.216.34/hook", secret="s" * 32)
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        assert rita.post(f"{URL}{task.pk}/finalize/").status_code == 200
    delivery = WebhookDelivery.objects.get()
    assert delivery.event == "result.final"
    assert delivery.payload["result"]["version"] == 2
    assert delivery.payload["job"]["state"] == "done"
    assert delivery.payload["document"] == {"id": str(task.document_id), "kind": "ticket", "reference": "T-2026-0042"}
    assert len(callbacks) == 1  # the enqueue waits for the commit


def test_review_task_open_is_idempotent(actors: Any) -> None:
    task = needs_review_task(actors, reasons=["gate_review"], suggested_response=None)
    again = review_task_open(job=task.job, reasons=["qa_sample"])
    assert again.pk == task.pk
    assert ReviewTask.objects.count() == 1
    assert again.reasons == ["gate_review"] and again.response_text == ""
    assert AuditEvent.objects.filter(action="review.opened").count() == 1


class UncertainFindingStage:
    name = "uncertain"

    def run(self, ctx: JobContext) -> None:
        ctx.findings.append({"kind": "clause", "label": "违约金", "span": [0, 4], "confidence": 0.3, "source": "rule"})
        ctx.review_reasons.append("low_confidence")


def test_a_pipeline_job_that_needs_review_gets_one_task_with_stable_finding_ids(actors: Any) -> None:
    from contracts.intake.submission import Submission, document_submit

    job = document_submit(
        organisation=actors.acme,
        submission=Submission(kind="contract", source="api", text="第一条 违约金为合同总额的5%。"),
    ).job
    job_run(job.pk, "w", stages=[*pipeline_stages(), UncertainFindingStage()])
    job.refresh_from_db()
    assert job.state == JobState.NEEDS_REVIEW
    task = review_task_open(job=job, reasons=job.review_reasons)  # a no-op once job_finish opens it itself
    assert ReviewTask.objects.filter(job=job).count() == 1
    assert task.priority > 0
    ids = [finding["id"] for finding in Result.objects.get(job=job).data["findings"]]
    assert ids and len(set(ids)) == len(ids)
