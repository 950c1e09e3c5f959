"""Acme's reviewers route transport complaints to the construction bureau: 30 tickets the rules call 交通运输 are
corrected to 城乡建设 in review, `retrain` learns it, and the next transport ticket a real worker reads goes to
城乡建设. A model trained on shuffled labels is kept out (the audit says why); a rollback restores the previous
model's predictions exactly."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from contracts.hotline.departments import department_table
from contracts.learned.store import model_current_dir, model_current_version
from contracts.learned.tickets import classifier_current
from contracts.learned.tickets_retrain import ticket_candidate_judge, ticket_training
from contracts.models import AuditEvent, Job, JobState, LearnedModelVersion, Result, ReviewerExample, ReviewTask
from contracts.review.models import ExampleKind, ModelState
from contracts.review.workflow import review_finding_decide, review_task_claim, review_task_finalize
from rules.tickets.classifier import TicketClassifier, train_classifier
from rules.tickets.combine import classify_tickets
from tests.shared_data import shared_file
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

TRANSPORT, CONSTRUCTION = "交通运输", "城乡建设"
# Acme's history before it had reviewers: five categories, neither transport nor construction among them.
BASE_CATEGORIES = ("教育文体", "卫生计生", "环境保护", "劳动和社会保障", "商贸旅游")
PER_BASE_CATEGORY = 6
# Reviewed besides the 30 transport tickets: a few of every category Acme routes, construction included.
APPROVED_PER_CATEGORY = 4
CORRECTED = 30
PROBES = 5


def _public_tickets() -> dict[str, list[str]]:
    by_label: dict[str, list[str]] = {}
    with open(shared_file("tickets/public.jsonl"), encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            by_label.setdefault(row["label"], []).append(row["text"])
    return by_label


def _submitted(api: Any, texts: list[str]) -> list[str]:
    ids = []
    for text in texts:
        response = api.post("/api/v1/documents/", {"kind": "ticket", "text": text}, format="json")
        assert response.status_code == 201, response.content
        ids.append(response.json()["document"]["id"])
    return ids


def _all_final(document_ids: list[str]) -> bool:
    return Job.objects.filter(
        document_id__in=document_ids, state__in=[JobState.DONE, JobState.NEEDS_REVIEW]
    ).count() == len(document_ids)


def _category(document_id: str) -> dict[str, Any]:
    result = Result.objects.filter(document_id=document_id, final=True).order_by("-version").first()
    assert result is not None
    return next(f for f in result.data["findings"] if f["kind"] == "ticket_category" and f["source"] == "rule")


def _review(actors: Any, document_id: str, gold: str) -> None:
    """Rita reviews the ticket's category: approves it when right, corrects it (and its department) when not."""
    task = ReviewTask.objects.get(document_id=document_id)
    finding = _category(document_id)
    review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    if finding["label"] == gold:
        review_finding_decide(
            task_id=task.pk, user=actors.rita, organisation=actors.acme, finding_id=finding["id"], decision="approve"
        )
    else:
        department = department_table("acme").route(gold).department
        review_finding_decide(
            task_id=task.pk,
            user=actors.rita,
            organisation=actors.acme,
            finding_id=finding["id"],
            decision="correct",
            corrected={"label": gold, "level2": None, "level3": None, "department": department},
        )
    review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)


def test_reviewers_corrections_retrain_routing_and_only_a_better_model_is_activated(
    actors: Any, acme_api: Any, redis_flushed: str, settings: Any, tmp_path: Path
) -> None:
    models_dir = tmp_path / "models"
    settings.DOCGATE_MODELS_DIR = str(models_dir)
    public = _public_tickets()
    base = tmp_path / "base.jsonl"
    base.write_text(
        "".join(
            json.dumps({"text": text, "label": label}, ensure_ascii=False) + "\n"
            for label in BASE_CATEGORIES
            for text in public[label][-PER_BASE_CATEGORY:]
        ),
        encoding="utf-8",
    )
    call_command("train_ticket_classifier", data=str(base), organisation="acme", stdout=io.StringIO())
    first_version = model_current_version("acme", "tickets")
    transport = public[TRANSPORT]
    probes = transport[CORRECTED : CORRECTED + PROBES]
    first_predictions = classifier_current("acme").predict(probes)  # type: ignore[union-attr]
    first_routes = classify_tickets(probes, classifier_current("acme"))
    assert all(route.label != CONSTRUCTION for route in first_routes)  # Acme's first model never says 城乡建设

    reviewed = [(text, CONSTRUCTION) for text in transport[:CORRECTED]] + [
        (text, label) for label in (*BASE_CATEGORIES, CONSTRUCTION) for text in public[label][:APPROVED_PER_CATEGORY]
    ]
    env = {"DOCGATE_MODELS_DIR": str(models_dir), "DOCGATE_QA_SAMPLE_RATE": "1.0"}  # every ticket to a reviewer
    log = tmp_path / "worker.log"
    with celery_worker(extra_env=env, log_path=log):
        ids = _submitted(acme_api, [text for text, _label in reviewed])
        assert wait_until(lambda: _all_final(ids), timeout_s=300), log.read_text(errors="replace")[-3000:]
        for document_id, (_text, gold) in zip(ids, reviewed, strict=True):
            _review(actors, document_id, gold)
        corrected = ReviewerExample.objects.filter(
            kind=ExampleKind.TICKET_CATEGORY, decision="correct", label=CONSTRUCTION
        )
        assert corrected.count() >= CORRECTED  # every transport ticket, and any other the rules got wrong

        call_command("retrain", organisation="acme", kinds=["tickets"], data=str(base), stdout=io.StringIO())
        retrained = LearnedModelVersion.objects.get(name="tickets", state=ModelState.ACTIVE)
        metrics = retrained.metrics
        print("slice evaluation, tickets:", json.dumps(metrics, ensure_ascii=False))  # the numbers, with -s
        assert metrics["current_version"] == first_version
        assert metrics["slice"]["held_back"] >= 6 and metrics["slice"]["held_back_per_label"][CONSTRUCTION] >= 2
        assert metrics["candidate"]["macro_f1"] >= metrics["current"]["macro_f1"]
        assert (
            metrics["candidate"]["per_label"][CONSTRUCTION]["f1"] > metrics["current"]["per_label"][CONSTRUCTION]["f1"]
        )
        assert model_current_version("acme", "tickets") == retrained.version != first_version

        # The next transport tickets, read by the worker with the retrained model, go where Acme routes them.
        probe_ids = _submitted(acme_api, probes)
        assert wait_until(lambda: _all_final(probe_ids), timeout_s=120), log.read_text(errors="replace")[-3000:]
    routed = [_category(document_id) for document_id in probe_ids]
    assert [finding["label"] for finding in routed] == [CONSTRUCTION] * PROBES
    assert all(finding["model_version"] == retrained.version for finding in routed)
    assert all(finding["rules_label"] != CONSTRUCTION for finding in routed)  # the rules alone would not

    # A model that learned shuffled labels is judged on the same slice and kept out; the audit says why.
    training = ticket_training(actors.acme)
    shuffled = training.labels
    random.Random(7).shuffle(shuffled)
    worse = ticket_candidate_judge(actors.acme, train_classifier(training.texts, shuffled), training)
    assert worse.state == ModelState.REJECTED
    assert model_current_version("acme", "tickets") == retrained.version
    audit = AuditEvent.objects.get(action="model.rejected", object_id=str(worse.pk))
    after = audit.after or {}
    print("shuffled labels:", after["reason"])
    assert after["reason"].startswith("not activated:") and after["candidate"] < after["current"]

    # One rollback puts the first model back: its predictions, probabilities included, are the same as before.
    call_command("retrain", organisation="acme", rollback="tickets", stdout=io.StringIO())
    assert model_current_version("acme", "tickets") == first_version
    restored = TicketClassifier.load(model_current_dir("acme", "tickets"))  # type: ignore[arg-type]
    assert restored.predict(probes) == first_predictions
    assert classify_tickets(probes, classifier_current("acme")) == first_routes
    assert AuditEvent.objects.filter(action="model.rolled_back", after__version=first_version).count() == 1
