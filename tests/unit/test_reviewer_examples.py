"""Corrections as data: Rita's decisions become labelled examples, exported as JSONL with personal data masked for
those whose role does not see it; the review queue puts the least sure results first within a priority."""

from __future__ import annotations

import io
import json
from typing import Any, cast

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import StreamingHttpResponse
from rest_framework.test import APIClient

from contracts.models import Membership, ReviewerExample, ReviewTask, Role
from contracts.review.workflow import (
    review_finding_decide,
    review_response_edit,
    review_task_claim,
    review_task_finalize,
)
from tests.reviewed_documents import document_reviewable

pytestmark = pytest.mark.django_db

PHONE = "13912345678"
TICKET = f"公交车司机态度恶劣，我叫王小明，电话{PHONE}，请交通局处理。"
GATE = {
    "decision": "review",
    "risk": 0.9,
    "rule_risk": 0.1,
    "model_risk": 0.9,
    "model_category": None,
    "model_version": "safety-test",
    "kind": "ticket",
    "llm_risk": None,
    "llm_status": "off",
    "reasons": ["model"],
    "categories": {},
    "pack_version": "test",
}


def _findings(text: str) -> list[dict[str, Any]]:
    start = text.index(PHONE)
    return [
        {"id": "C", "kind": "ticket_category", "label": "交通运输", "department": "交通局", "source": "rule",
         "confidence": 0.7},
        {"id": "P", "kind": "entity", "label": "PHONE", "span": [start, start + len(PHONE)], "text": PHONE,
         "is_pii": True, "source": "rule"},
        {"id": "U", "kind": "urgency", "label": "normal", "source": "rule"},
    ]  # fmt: skip


def _task(actors: Any, *, text: str = TICKET, reasons: tuple[str, ...] = ("gate_review",), **data: Any) -> ReviewTask:
    return document_reviewable(
        actors, "ticket", text, _findings(text), reasons=reasons, suggested_response="您好，已转交通局。", **data
    )


def _reviewed(actors: Any) -> ReviewTask:
    """Rita moves the ticket to 城乡建设, approves the phone number, rejects the urgency, rewrites the reply and
    lets the reply go out although the gate held it."""
    task = _task(actors, gate=GATE)
    rita, acme = actors.rita, actors.acme
    review_task_claim(task_id=task.pk, user=rita, organisation=acme)
    review_finding_decide(
        task_id=task.pk, user=rita, organisation=acme, finding_id="C", decision="correct",
        corrected={"label": "城乡建设", "department": "住建局"}, note=f"王小明 {PHONE} 的事归住建",
    )  # fmt: skip
    review_finding_decide(task_id=task.pk, user=rita, organisation=acme, finding_id="P", decision="approve")
    review_finding_decide(task_id=task.pk, user=rita, organisation=acme, finding_id="U", decision="reject")
    review_response_edit(task_id=task.pk, user=rita, organisation=acme, text="您好，已转住建局处理。")
    review_task_finalize(task_id=task.pk, user=rita, organisation=acme)
    return task


def test_every_decision_of_a_review_is_kept_as_a_labelled_example(actors: Any) -> None:
    task = _reviewed(actors)
    examples = {(e.kind, e.decision): e for e in ReviewerExample.objects.filter(task=task)}
    assert sorted(examples) == [
        ("finding", "approve"),
        ("finding", "reject"),
        ("gate", "overruled"),
        ("reply", "correct"),
        ("ticket_category", "correct"),
        ("ticket_department", "correct"),
    ]
    category = examples[("ticket_category", "correct")]
    assert (category.previous, category.label) == ("交通运输", "城乡建设")
    assert (category.judged_version, category.reviewed_result.version) == (1, 2)
    assert category.reviewer == actors.rita and category.document_id == task.document_id
    assert (examples[("ticket_department", "correct")].previous, examples[("ticket_department", "correct")].label) == (
        "交通局",
        "住建局",
    )
    assert examples[("finding", "reject")].label == "" and examples[("finding", "reject")].previous == "normal"
    gate = examples[("gate", "overruled")]
    assert (gate.previous, gate.label, gate.detail["model_risk"]) == ("review", "allow", 0.9)
    assert examples[("reply", "correct")].label == "您好，已转住建局处理。"


def _exported(**options: Any) -> list[dict[str, Any]]:
    out = io.StringIO()
    call_command("export_reviewer_examples", organisation="acme", stdout=out, stderr=io.StringIO(), **options)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_export_masks_personal_data_unless_the_exporters_role_sees_it(actors: Any) -> None:
    _reviewed(actors)
    for rows in (_exported(), _exported(user="alice")):  # no exporter, or a submitter: masked
        assert len(rows) == 6
        dumped = json.dumps(rows, ensure_ascii=False)
        assert PHONE not in dumped  # in the text, the approved entity and the reviewer's note alike
        assert len(rows[0]["document"]["text"]) == len(TICKET)  # masked in place: spans still point right
    full = _exported(user="rita")  # a reviewer reads documents as they were sent
    assert full[0]["document"]["text"] == TICKET
    assert PHONE in next(row for row in full if row["kind"] == "ticket_category")["detail"]["note"]
    assert [row["kind"] for row in _exported(kinds=["ticket_category"])] == ["ticket_category"]


def _streamed(response: Any) -> str:
    return b"".join(cast(StreamingHttpResponse, response).streaming_content).decode()  # type: ignore[arg-type]


def test_export_over_the_api_is_for_the_organisations_admins(actors: Any) -> None:
    _reviewed(actors)
    admin = get_user_model().objects.create_user("ada", password="ada-password-1")
    Membership.objects.create(user=admin, organisation=actors.acme, role=Role.ADMIN)
    rita, ada = APIClient(), APIClient()
    rita.force_login(actors.rita)
    ada.force_login(admin)
    assert rita.get("/api/v1/reviewer-examples/").status_code == 403
    response = ada.get("/api/v1/reviewer-examples/")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/x-ndjson")
    rows = [json.loads(line) for line in _streamed(response).splitlines()]
    assert len(rows) == 6 and rows[0]["document"]["text"] == TICKET
    masked = _streamed(ada.get("/api/v1/reviewer-examples/", {"masked": "true"}))
    assert PHONE not in masked and masked.count("\n") == 6


def test_queue_puts_the_least_sure_first_within_a_priority(actors: Any) -> None:
    sure = _task(actors, text=TICKET + "甲", reasons=("low_confidence",), confidence={"category": 0.45})
    unsure = _task(actors, text=TICKET + "乙", reasons=("low_confidence",), confidence={"category": 0.05})
    middling = _task(actors, text=TICKET + "丙", reasons=("low_confidence",), confidence={"category": 0.3})
    held = _task(actors, text=TICKET + "丁", reasons=("gate_review",), confidence={"category": 0.99})
    assert [round(t.uncertainty, 2) for t in (sure, unsure, middling, held)] == [0.55, 0.95, 0.7, 0.01]
    rita = APIClient()
    rita.force_login(actors.rita)
    rows = rita.get("/api/v1/reviews/").json()["results"]
    assert [row["id"] for row in rows] == [str(t.pk) for t in (held, unsure, middling, sure)]
    assert rows[1]["uncertainty"] == 0.95
    portal = rita.get("/review/")  # the portal's queue orders the same way
    assert [str(t.pk) for t in portal.context["tasks"]] == [str(t.pk) for t in (held, unsure, middling, sure)]
    assert '<td data-testid="task-doubt">95%</td>' in portal.content.decode()


def test_admin_counts_examples_per_kind_and_lists_model_versions(actors: Any) -> None:
    _reviewed(actors)
    operator = get_user_model().objects.create_superuser("op", password="op-password-1")
    client = APIClient()
    client.force_login(operator)
    organisations = client.get("/admin/contracts/organisation/").content.decode()
    assert "ticket_category: 1" in organisations and "gate: 1" in organisations
    examples = client.get("/admin/contracts/reviewerexample/").content.decode()
    assert "finding: 2" in examples
    assert client.get("/admin/contracts/learnedmodelversion/").status_code == 200
