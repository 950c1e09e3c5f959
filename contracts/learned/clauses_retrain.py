"""Retrain an organisation's clause heading model on its contracts plus what its reviewers said of clauses (a type
added to a passage, a type removed), and judge it against the one in use on the held-back reviewed contracts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from contracts.learned.clauses import NAME, clause_model_current
from contracts.learned.slice import Labelled, slice_split
from contracts.learned.store import model_save
from contracts.learned.versions import failed_version, model_version_failed, model_version_slice_judge
from contracts.models import (
    Document,
    ExampleKind,  # registered there with Django
    LearnedModelVersion,
    Organisation,
    Result,
    ReviewerExample,
)
from rules.clauses import PRESENT, clause_presence
from rules.clauses.heading_model import (
    MAX_BODY_CHARS,
    OTHER,
    ArticleExample,
    ClauseModel,
    ClauseModelError,
    train_clause_model,
)
from rules.clauses.structure import fold
from rules.evaluation.common import LabelCounts, per_label_report
from rules.normalize import normalize

# Contracts carry many clause types each: the slice is stratified by kind alone (one stratum).
STRATUM = "contract"


def _reviewed_clauses(result: Result) -> set[str]:
    """The clause types a reviewed result says the contract provides for (rejected findings left out)."""
    findings = (result.data or {}).get("findings") or []
    return {
        str(f["label"])
        for f in findings
        if isinstance(f, dict) and f.get("kind") == "clause" and f.get("label") and f.get("status") in PRESENT
    }


def reviewed_contracts(organisation: Organisation) -> dict[str, Result]:
    """Each reviewed contract's latest reviewed result, by document id."""
    examples = (
        ReviewerExample.objects.filter(organisation=organisation, document__kind="contract")
        .select_related("reviewed_result")
        .order_by("created_at", "id")
    )
    return {str(example.document_id): example.reviewed_result for example in examples}


def _passage(document: Document, finding: dict[str, Any]) -> str:
    span = finding.get("span")
    if not (isinstance(span, list) and len(span) == 2):
        return ""
    return fold(document.text[int(span[0]) : int(span[1])])[:MAX_BODY_CHARS].strip()


def clause_labelled(organisation: Organisation, documents: dict[str, int]) -> list[ArticleExample]:
    """The passages reviewers gave a clause type to (or took one from: `OTHER`) in the training contracts."""
    examples = ReviewerExample.objects.filter(
        organisation=organisation,
        kind__in=[ExampleKind.CLAUSE_ADDED, ExampleKind.CLAUSE_REMOVED],
        document_id__in=list(documents),
    ).select_related("document")
    labelled = []
    for example in examples:
        passage = _passage(example.document, (example.detail or {}).get("finding") or {})
        if passage:
            label = example.label if example.kind == ExampleKind.CLAUSE_ADDED else OTHER
            labelled.append(ArticleExample(passage, label, documents[str(example.document_id)]))
    return labelled


def clause_slice_report(
    model: ClauseModel | None, held: Sequence[Labelled], gold: dict[str, set[str]]
) -> dict[str, Any]:
    """Per clause type, presence precision/recall/F1 over the held-back contracts; macro-F1 the primary."""
    counts: dict[str, LabelCounts] = {}
    for item in held:
        predicted = {label for label, found in clause_presence(item.text, model=model).items() if found is not None}
        for label in predicted | gold[item.key]:
            entry = counts.setdefault(label, LabelCounts())
            if label in predicted and label in gold[item.key]:
                entry.tp += 1
            elif label in predicted:
                entry.fp += 1
            else:
                entry.fn += 1
    return {"n": len(held), **per_label_report(counts)}


def clauses_retrain(organisation: Organisation, *, user: Any = None) -> LearnedModelVersion:
    """Train on the organisation's contracts outside the slice (and its reviewers' clause examples), and judge it."""
    reviewed = reviewed_contracts(organisation)
    split = slice_split([Labelled(key, "", STRATUM) for key in reviewed])
    held_keys = {item.key for item in split.held}
    documents = list(
        Document.objects.filter(organisation=organisation, kind="contract")
        .exclude(pk__in=list(held_keys))
        .values_list("pk", "text")
    )
    index = {str(pk): n for n, (pk, _text) in enumerate(documents)}
    texts = [normalize(text).text for _pk, text in documents]
    trained_on = {"contracts": len(texts), "slice": split.statement()}
    try:
        candidate = train_clause_model(texts, labelled=clause_labelled(organisation, index))
    except ClauseModelError as exc:
        return model_version_failed(
            organisation=organisation,
            name=NAME,
            version=failed_version(NAME),
            reason=str(exc),
            trained_on=trained_on,
            user=user,
        )
    candidate.metadata["model_version"] = f"clauses-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}"
    model_save(organisation.slug, NAME, candidate.version, candidate.save)
    held = [Labelled(item.key, normalize(reviewed[item.key].document.text).text, STRATUM) for item in split.held]
    gold = {item.key: _reviewed_clauses(reviewed[item.key]) for item in held}
    current = clause_model_current(organisation.slug)
    return model_version_slice_judge(
        organisation=organisation,
        name=NAME,
        version=candidate.version,
        reports={
            "current": clause_slice_report(current, held, gold),
            "candidate": clause_slice_report(candidate, held, gold),
        },
        slice_statement=split.statement(),
        current_version=current.version if current is not None else "rules",
        trained_on={**trained_on, "examples": candidate.metadata.get("examples")},
        user=user,
    )
