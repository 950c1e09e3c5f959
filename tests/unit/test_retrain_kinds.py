"""Each model kind retrained from Acme's reviews is judged on its own held-back slice, and the evaluation is kept
with the version: the clause heading model on held-back reviewed contracts, the safety review threshold on
held-back gate holds."""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import pytest
from django.core.management import call_command

from contracts.gate import gate_policy
from contracts.learned.retrain import organisations_retrain
from contracts.learned.store import model_current_version
from contracts.models import Document, Job, JobState, LearnedModelVersion, Result, ReviewerExample, ReviewTask
from contracts.review.models import ModelState
from contracts.review.workflow import (
    review_finding_decide,
    review_response_edit,
    review_task_claim,
    review_task_finalize,
    review_task_open,
)
from rules.clauses import clause_presence
from tests.shared_data import shared_file

pytestmark = pytest.mark.django_db

CONTRACTS = 40  # enough headed articles for three clause types; training takes about a minute on a shared core
REVIEWED = 10


def _contract(actors: Any, text: str, findings: list[dict[str, Any]], **data: Any) -> ReviewTask:
    document = Document.objects.create(
        organisation=actors.acme,
        kind="contract",
        source="api",
        content_type="text/plain",
        size_bytes=len(text.encode()),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        text=text,
    )
    reasons = ["gate_review"] if "gate" in data else ["qa_sample"]
    job = Job.objects.create(
        organisation=actors.acme, document=document, state=JobState.NEEDS_REVIEW, review_reasons=reasons
    )
    result = Result.objects.create(
        organisation=actors.acme,
        document=document,
        job=job,
        version=1,
        data={"kind": "contract", "findings": findings, "suggested_response": "识别到条款。", **data},
    )
    return review_task_open(job=job, reasons=reasons, result=result)


def _clause_findings(text: str) -> list[dict[str, Any]]:
    found = [finding for finding in clause_presence(text).values() if finding is not None]
    return [
        {"id": f"K{n}", "kind": "clause", "label": f.label, "status": f.status, "span": [f.start, f.end],
         "confidence": f.confidence, "source": "rule"}
        for n, f in enumerate(found)
    ]  # fmt: skip


def _retrained(kind: str) -> LearnedModelVersion:
    call_command("retrain", organisation="acme", kinds=[kind], stdout=io.StringIO(), stderr=io.StringIO())
    return LearnedModelVersion.objects.get(name=kind)


def test_clause_model_is_judged_on_held_back_reviewed_contracts(actors: Any, settings: Any, tmp_path: Any) -> None:
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    with open(shared_file("train/contracts_unlabeled.jsonl"), encoding="utf-8") as handle:
        texts = [json.loads(line)["text"] for line in handle][:CONTRACTS]
    for number, text in enumerate(texts):
        findings = _clause_findings(text)
        if number >= REVIEWED or not findings:
            _contract(actors, text, findings)
            continue
        task = _contract(actors, text, findings)
        review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
        for index, finding in enumerate(findings):  # Rita takes the first clause type off every other contract
            decision = "reject" if index == 0 and number % 2 else "approve"
            review_finding_decide(task_id=task.pk, user=actors.rita, organisation=actors.acme,
                                  finding_id=finding["id"], decision=decision)  # fmt: skip
        review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    assert ReviewerExample.objects.filter(kind="clause_removed").exists()

    version = _retrained("clauses")
    metrics = version.metrics
    print("slice evaluation, clauses:", json.dumps(metrics, ensure_ascii=False))
    held = metrics["slice"]["held_back"]
    assert held >= 1 and metrics["current"]["n"] == metrics["candidate"]["n"] == held
    assert version.trained_on["contracts"] == CONTRACTS - held  # the held-back contracts are never trained on
    assert metrics["current_version"] == "rules" and {"macro_f1", "per_label"} <= set(metrics["candidate"])
    if version.state == ModelState.ACTIVE:
        assert metrics["candidate"]["macro_f1"] >= metrics["current"]["macro_f1"]
        assert model_current_version("acme", "clauses") == version.version
    else:
        assert version.reason.startswith("not activated") and model_current_version("acme", "clauses") is None


OVERRULED_RISKS = (0.951, 0.952, 0.953, 0.954, 0.955, 0.956, 0.957, 0.958)
UPHELD_RISKS = (0.985, 0.988, 0.991, 0.994)


def test_safety_review_threshold_moves_past_the_holds_reviewers_overruled(
    actors: Any, settings: Any, tmp_path: Any
) -> None:
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    review_before = gate_policy("contract", "acme").review
    for number, risk in enumerate((*OVERRULED_RISKS, *UPHELD_RISKS)):
        gate = {"decision": "review", "risk": risk, "rule_risk": 0.0, "model_risk": risk, "model_category": None,
                "model_version": "t", "kind": "contract", "llm_risk": None, "llm_status": "off", "reasons": [],
                "categories": {}, "pack_version": "t"}  # fmt: skip
        task = _contract(actors, f"第一条 本合同第{number}份，双方按约履行。", [], gate=gate)
        review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
        if risk in UPHELD_RISKS:  # withheld: the reviewer agrees nothing should go out
            review_response_edit(task_id=task.pk, user=actors.rita, organisation=actors.acme, text="")
        review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)

    version = _retrained("safety_thresholds")
    metrics = version.metrics
    print("slice evaluation, safety thresholds:", json.dumps(metrics, ensure_ascii=False))
    assert metrics["slice"]["held_back_per_label"]["overruled"] >= 1
    assert metrics["slice"]["held_back_per_label"]["upheld"] >= 1
    assert metrics["candidate"]["macro_f1"] > metrics["current"]["macro_f1"]
    assert version.state == ModelState.ACTIVE
    review_after = gate_policy("contract", "acme").review
    assert max(OVERRULED_RISKS) < review_after < min(UPHELD_RISKS) and review_before == 0.95
    assert gate_policy("contract", "globex").review == review_before  # Acme's verdicts move Acme's gate only
    assert organisations_retrain() == {}  # beat's pass: no organisation has examples newer than its last version
