"""The reviewed result: a reviewer's decisions applied to the result under review, as a pure function."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, cast

from contracts.findings import Finding
from contracts.models import FindingDecision, ReviewDecision
from contracts.result_data import ResultData, SuggestedResponse


def reviewed_finding(finding: Finding, decision: FindingDecision | None) -> Finding:
    """The finding as the reviewer left it: unreviewed, approved, corrected (its previous values kept) or
    rejected."""
    reviewed: dict[str, Any] = {**finding, "review": "unreviewed"}
    if decision is not None and decision.note:
        reviewed["review_note"] = decision.note
    if decision is not None and decision.decision == ReviewDecision.APPROVE:
        reviewed["review"] = "approved"
    elif decision is not None and decision.decision == ReviewDecision.CORRECT:
        changes = dict(decision.corrected or {})
        original = {key: finding.get(key) for key in changes}
        reviewed = {**reviewed, **changes, "review": "corrected", "original": original}
    elif decision is not None:
        reviewed["review"] = "rejected"
    return cast(Finding, reviewed)  # the finding's own keys, set by the review (`contracts.models.FindingDecision`)


def review_result_data(
    *,
    base: ResultData,
    decisions: Mapping[str, FindingDecision],
    response_text: str,
    reviewer: str,
    reviewed_at: datetime,
) -> ResultData:
    """Build the reviewed result from the one under review: mark, correct or remove each finding."""
    findings: list[Finding] = []
    rejected: list[Finding] = []
    for finding in base.findings:
        decision = decisions.get(str(finding.get("id")))
        reviewed = reviewed_finding(finding, decision)
        (rejected if reviewed["review"] == "rejected" else findings).append(reviewed)
    # A reviewer has now approved what goes out (or withheld it by leaving the response empty).
    status: Literal["reviewed", "withheld"] = "reviewed" if response_text else "withheld"
    response = base.response.model_copy(update={"status": status}) if base.response else None
    return base.model_copy(
        update={
            "findings": findings,
            "rejected_findings": rejected,
            "suggested_response": response_text or None,
            "response": response or SuggestedResponse(status=status),
            "reviewed_by": reviewer,
            "reviewed_at": reviewed_at.isoformat(),
        }
    )
