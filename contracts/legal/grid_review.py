"""A grid cell decided: approve, correct (from the value a reviewer types) or reject one key term of a contract,
through the review service (`contracts.review.settled`): a new result version, audited."""

from __future__ import annotations

from typing import Any

from contracts.findings import finding_list
from contracts.legal.term_values import term_correction
from contracts.models import Document, Organisation, Result, ReviewDecision
from contracts.review.settled import review_finding_settle


def term_cell_decide(
    *,
    document: Document,
    user: Any,
    organisation: Organisation,
    finding_id: str,
    decision: str,
    value: str = "",
    note: str = "",
    seen_version: int | None = None,
) -> Result:
    """Decide one key term; a correction reads the typed value as the rules read contracts (壹拾万元整, 三年,
    日万分之五, 2026年3月1日) and an empty one marks the term blank."""
    corrected = None
    if decision == ReviewDecision.CORRECT:
        latest = document.latest_result()
        findings = finding_list(latest.data or {}, "findings") if latest is not None else []
        kind = next((str(f.get("label") or "") for f in findings if str(f.get("id")) == finding_id), "")
        corrected = term_correction(kind, value)
    return review_finding_settle(
        document_id=document.pk,
        user=user,
        organisation=organisation,
        finding_id=finding_id,
        decision=decision,
        corrected=corrected,
        note=note,
        seen_version=seen_version,
    )
