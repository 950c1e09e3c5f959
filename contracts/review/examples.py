"""Corrections as data: every decision of a finalized review kept as a labelled example of the organisation's
documents (`ReviewerExample`), with the result version judged, the version written and the reviewer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from contracts.models import FindingDecision, Result, ReviewDecision, ReviewerExample, ReviewTask
from contracts.review.models import ExampleKind

# Review reasons that mean the safety gate held the result back (`contracts.review.workflow.REASON_PRIORITY`).
GATE_REASONS = ("gate_block", "gate_review")


@dataclass(frozen=True)
class ExampleDraft:
    """One example before it is stored: what kind of decision, the verdict, the labels before and after."""

    kind: str
    decision: str
    label: str = ""
    previous: str = ""
    finding_id: str = ""
    finding_kind: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _finding_drafts(finding: Mapping[str, Any], decision: FindingDecision) -> list[ExampleDraft]:
    """The examples one finding decision makes: the category (and department) of a ticket, a clause type added
    or removed, or a finding approved, corrected or rejected."""
    kind, finding_id = _text(finding.get("kind")), _text(finding.get("id"))
    corrected = dict(decision.corrected or {}) if decision.decision == ReviewDecision.CORRECT else {}
    # A key term's label names the term (price, penalty…); what a reviewer settles is its normalised value.
    field_name = "normalised" if kind == "term" else "label"
    previous = _text(finding.get(field_name))
    label = "" if decision.decision == ReviewDecision.REJECT else _text(corrected.get(field_name, previous))
    detail = {"finding": dict(finding), "corrected": corrected or None, "note": decision.note}

    def draft(example_kind: str, verdict: str, new: str, old: str) -> ExampleDraft:
        return ExampleDraft(example_kind, verdict, new, old, finding_id, kind, detail)

    if kind == "ticket_category":
        drafts = [draft(ExampleKind.TICKET_CATEGORY, decision.decision, label, previous)]
        department = _text(finding.get("department"))
        if decision.decision != ReviewDecision.REJECT:
            new_department = _text(corrected.get("department", department))
            drafts.append(draft(ExampleKind.TICKET_DEPARTMENT, decision.decision, new_department, department))
        return drafts
    if kind == "clause" and decision.decision == ReviewDecision.REJECT:
        return [draft(ExampleKind.CLAUSE_REMOVED, "removed", "", previous)]
    if kind == "clause" and label != previous:
        return [draft(ExampleKind.CLAUSE_ADDED, "added", label, previous)]
    return [draft(ExampleKind.FINDING, decision.decision, label, previous)]


def reviewer_example_drafts(
    *, judged: Mapping[str, Any], decisions: Mapping[str, FindingDecision], reasons: list[str], response_text: str
) -> list[ExampleDraft]:
    """Every labelled example a review makes of the judged result's data: per decided finding, the gate's outcome
    upheld (withheld) or overruled (sent) where the gate held the result back, and the reply where it was edited."""
    drafts: list[ExampleDraft] = []
    for finding in judged.get("findings") or []:
        decision = decisions.get(_text(finding.get("id"))) if isinstance(finding, Mapping) else None
        if decision is not None:
            drafts.extend(_finding_drafts(finding, decision))
    gate = judged.get("gate")
    held = [reason for reason in reasons if str(reason).split(":", 1)[0] in GATE_REASONS]
    if held and isinstance(gate, Mapping):
        sent = bool(response_text.strip())
        drafts.append(
            ExampleDraft(
                ExampleKind.GATE,
                "overruled" if sent else "upheld",
                label="allow" if sent else _text(gate.get("decision")),
                previous=_text(gate.get("decision")),
                detail={key: gate.get(key) for key in ("kind", "risk", "model_risk", "rule_risk", "model_version")}
                | {"reasons": held},
            )
        )
    suggested = _text(judged.get("suggested_response"))
    if response_text.strip() and response_text != suggested:
        drafts.append(ExampleDraft(ExampleKind.REPLY, "correct", response_text, suggested))
    return drafts


def _examples_store(
    drafts: list[ExampleDraft], *, judged: Result, reviewed: Result, task: ReviewTask | None, user: Any
) -> list[ReviewerExample]:
    rows = [
        ReviewerExample(
            organisation_id=reviewed.organisation_id,
            document_id=reviewed.document_id,
            reviewed_result=reviewed,
            judged_version=judged.version,
            task=task,
            reviewer=user,
            kind=draft.kind,
            decision=draft.decision,
            finding_id=draft.finding_id,
            finding_kind=draft.finding_kind,
            label=draft.label,
            previous=draft.previous,
            detail=draft.detail,
        )
        for draft in drafts
    ]
    return ReviewerExample.objects.bulk_create(rows)


def reviewer_examples_record(
    *, task: ReviewTask, judged: Result, reviewed: Result, decisions: Mapping[str, FindingDecision], user: Any
) -> list[ReviewerExample]:
    """Store the examples of a finalized review (inside the finalize transaction: both stand or neither)."""
    drafts = reviewer_example_drafts(
        judged=judged.data or {}, decisions=decisions, reasons=list(task.reasons), response_text=task.response_text
    )
    return _examples_store(drafts, judged=judged, reviewed=reviewed, task=task, user=user)


def settled_examples_record(
    *, finding: Mapping[str, Any], decision: FindingDecision, judged: Result, reviewed: Result, user: Any
) -> list[ReviewerExample]:
    """Store the example of one decision taken outside a review task (a cell of the legal grid), inside the
    transaction that writes its result version."""
    return _examples_store(_finding_drafts(finding, decision), judged=judged, reviewed=reviewed, task=None, user=user)
