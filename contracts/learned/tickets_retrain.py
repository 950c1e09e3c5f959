"""Retrain an organisation's ticket classifier with its reviewers' categories added, and judge the new version
against the one in use on the held-back slice (the category the whole classification routes to: rules and model
combined, as the desk classifies)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.learned.slice import Labelled, SliceSplit, slice_split
from contracts.learned.store import model_root, model_save
from contracts.learned.tickets import NAME, classifier_current
from contracts.learned.versions import failed_version, model_version_failed, model_version_slice_judge
from contracts.models import (
    ExampleKind,  # registered there with Django
    LearnedModelVersion,
    Organisation,
    ReviewDecision,
    ReviewerExample,
)
from rules.evaluation.common import classification_report, jsonl_rows
from rules.normalize import normalize
from rules.tickets.combine import classify_tickets

if TYPE_CHECKING:
    from rules.tickets.classifier import TicketClassifier

# The organisation's own labelled history (what its first classifier learned from), kept in its model folder.
BASE_FILE = "base.jsonl"


@dataclass(frozen=True)
class TicketTraining:
    """What a new ticket classifier learns from: the base history and the reviewed tickets outside the slice."""

    base: tuple[Labelled, ...]
    split: SliceSplit

    @property
    def texts(self) -> list[str]:
        return [item.text for item in (*self.base, *self.split.train)]

    @property
    def labels(self) -> list[str]:
        return [item.label for item in (*self.base, *self.split.train)]

    def statement(self) -> dict[str, Any]:
        return {"base_rows": len(self.base), "reviewed": len(self.split.train), "slice": self.split.statement()}


def ticket_base_store(organisation: Organisation, path: str | Path) -> int:
    """Keep an organisation's labelled history ({text, label} JSONL) in its own model folder; return its rows."""
    rows = [{"text": str(row["text"]), "label": str(row["label"])} for row in jsonl_rows(path)]
    root = model_root(organisation.slug, NAME)
    root.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    (root / BASE_FILE).write_text(lines, encoding="utf-8")
    return len(rows)


def _base_rows(organisation: Organisation) -> tuple[Labelled, ...]:
    path = model_root(organisation.slug, NAME) / BASE_FILE
    if not path.exists():
        return ()
    return tuple(Labelled(f"base:{n}", str(r["text"]), str(r["label"])) for n, r in enumerate(jsonl_rows(path)))


def ticket_category_examples(organisation: Organisation) -> dict[str, ReviewerExample]:
    """Per reviewed ticket (by document id, oldest first), the example of the category its latest review settled
    on (approved or corrected), with its document and reviewed result."""
    examples = (
        ReviewerExample.objects.filter(
            organisation=organisation,
            kind=ExampleKind.TICKET_CATEGORY,
            decision__in=[ReviewDecision.APPROVE, ReviewDecision.CORRECT],
        )
        .exclude(label="")
        .select_related("document", "reviewed_result")
        .order_by("created_at", "id")
    )
    return {str(example.document_id): example for example in examples}  # a later review replaces an earlier


def reviewed_tickets(organisation: Organisation) -> list[Labelled]:
    """Each reviewed ticket with the category its latest review settled on (approved or corrected), its text as
    the desk classifies it (normalized)."""
    latest = ticket_category_examples(organisation)
    return [Labelled(key, normalize(example.document.text).text, example.label) for key, example in latest.items()]


def ticket_training(organisation: Organisation) -> TicketTraining:
    """The organisation's ticket training data now (the slice held back)."""
    return TicketTraining(_base_rows(organisation), slice_split(reviewed_tickets(organisation)))


def ticket_slice_report(
    organisation: Organisation, classifier: TicketClassifier | None, held: Sequence[Labelled]
) -> dict[str, Any]:
    """Accuracy, macro-F1 and per-category F1 of the category the desk would route to, on the slice."""
    # The category does not depend on the department table (it only names who handles it), so the shared
    # learned package needs no desk here.
    classified = classify_tickets([item.text for item in held], classifier)
    return classification_report([item.label for item in held], [c.label for c in classified])


def ticket_candidate_judge(
    organisation: Organisation, candidate: TicketClassifier, training: TicketTraining, *, user: Any = None
) -> LearnedModelVersion:
    """Save the candidate in the organisation's folder, score it and the version in use (the rules alone where
    there is none) on the slice, and activate it only if the verdict allows."""
    model_save(organisation.slug, NAME, candidate.version, candidate.save)
    current = classifier_current(organisation.slug)
    held = training.split.held
    return model_version_slice_judge(
        organisation=organisation,
        name=NAME,
        version=candidate.version,
        reports={
            "current": ticket_slice_report(organisation, current, held),
            "candidate": ticket_slice_report(organisation, candidate, held),
        },
        slice_statement=training.split.statement(),
        current_version=current.version if current is not None else "rules",
        trained_on=training.statement(),
        user=user,
    )


def tickets_retrain(organisation: Organisation, *, user: Any = None) -> LearnedModelVersion:
    """Train a new classifier on the base history plus the reviewed tickets outside the slice, and judge it."""
    from rules.tickets.classifier import train_classifier  # heavy: scikit-learn, only when training

    training = ticket_training(organisation)
    try:
        candidate = train_classifier(training.texts, training.labels)
    except ValueError as exc:
        return model_version_failed(
            organisation=organisation,
            name=NAME,
            version=failed_version(NAME),
            reason=str(exc),
            trained_on=training.statement(),
            user=user,
        )
    return ticket_candidate_judge(organisation, candidate, training, user=user)
