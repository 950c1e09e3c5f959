"""The reviewed result: a reviewer's decisions applied to the result under review, as a pure function."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from contracts.findings import Finding
from contracts.models import FindingDecision, ReviewDecision


def review_result_data(
    *,
    base: Mapping[str, Any],
    decisions: Mapping[str, FindingDecision],
    response_text: str,
    reviewer: str,
    reviewed_at: datetime,
) -> dict[str, Any]:
    """Build the reviewed result from the one under review: mark, correct or remove each finding."""
    findings: list[Finding] = []
    rejected: list[Finding] = []
    for stored in base.get("findings", []):
        finding = cast(Finding, stored)
        decision = decisions.get(str(finding.get("id")))
        reviewed: Finding = {**finding, "review": "unreviewed"}
        if decision is not None and decision.note:
            reviewed["review_note"] = decision.note
        if decision is None:
            findings.append(reviewed)
        elif decision.decision == ReviewDecision.APPROVE:
            findings.append({**reviewed, "review": "approved"})
        elif decision.decision == ReviewDecision.CORRECT:
            changes = dict(decision.corrected or {})
            original = {key: finding.get(key) for key in changes}
            corrected = cast(Finding, {**reviewed, **changes})  # a correction sets a Finding's own keys
            findings.append({**corrected, "review": "corrected", "original": original})
        else:
            rejected.append({**reviewed, "review": "rejected"})
    return {
        **base,
        "findings": findings,
        "rejected_findings": rejected,
        "suggested_response": response_text or None,
        # A reviewer has now approved what goes out (or withheld it by leaving the response empty).
        "response": {**(base.get("response") or {}), "status": "reviewed" if response_text else "withheld"},
        "reviewed_by": reviewer,
        "reviewed_at": reviewed_at.isoformat(),
    }
