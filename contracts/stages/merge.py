"""The merge stage: rule and LLM findings into one set with provenance and conflicts, and the result's confidence.

Merge rule (each side has one finding per clause type): a clause both layers found is one finding with provenance
`both` (a blank template article counts as found); one only the rules found is `rule` (`unconfirmed` when the LLM
answered but did not name it); one only the LLM found is `llm` and a conflict, as is a clause the rules read as
negated but the LLM reports, and a single answer (a ticket's category) on which the two disagree (the rules'
deterministic answer stays the suggested one). Which finding kinds can conflict, and how, is the desk's
(`Desk.conflict_kinds`). Conflicts send the job to review.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from django.conf import settings

from contracts.findings import Finding
from contracts.models import RowId
from contracts.stages.base import JobContext
from contracts.standing.tally import marks_agree
from rules.clauses import NEGATED, PRESENT, STIPULATED


def _by_label(findings: list[Finding], kind: str, source: str) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        label = finding.get("label")
        if finding["kind"] == kind and finding["source"] == source and label:
            grouped.setdefault(label, []).append(finding)
    return grouped


def rule_llm_merge(
    findings: list[Finding],
    *,
    conflict_kinds: Mapping[str, bool],
    llm_answered: bool,
    asked: Callable[[str, str], bool] = lambda kind, label: True,
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Return findings with provenance and the list of conflicts between rules and LLM over `conflict_kinds`
    (finding kind -> whether it holds a single answer). A rule finding is `unconfirmed` only when the model
    answered and was asked about it (`asked(kind, label)`: the cascade asks about doubtful clause types only)."""
    merged: list[Finding] = []
    conflicts: list[dict[str, Any]] = []
    consumed: set[int] = set()
    for kind, single in conflict_kinds.items():
        rules = _by_label(findings, kind, "rule")
        llm = _by_label(findings, kind, "llm")
        for label, llm_findings in llm.items():
            rule_matches = [f for f in rules.get(label, []) if f.get("status", STIPULATED) in PRESENT]
            if rule_matches:
                first = rule_matches[0]
                first["provenance"] = "both"
                first["llm_evidence"] = llm_findings[0]["evidence"]
                first["llm_span"] = llm_findings[0]["span"]
                consumed.update(id(f) for f in llm_findings)
                continue
            negated = [f for f in rules.get(label, []) if f.get("status") == NEGATED]
            reason = "rules_negated_llm_present" if negated else "llm_only"
            if single and rules:
                reason = "category_disagrees"
            conflicts.append(
                {
                    "kind": kind,
                    "label": label,
                    "type": reason,
                    "rule_labels": sorted(rules),
                    "llm_span": llm_findings[0]["span"],
                }
            )
            for finding in llm_findings:
                finding["conflict"] = reason
    for finding in findings:
        if id(finding) in consumed:
            continue
        if "provenance" not in finding:
            finding["provenance"] = finding["source"]
            kind, label = finding["kind"], finding.get("label") or ""
            if finding["source"] == "rule" and kind in conflict_kinds and llm_answered and asked(kind, label):
                finding["agreement"] = "unconfirmed"
        merged.append(finding)
    return merged, conflicts


def qa_sampled(job_id: RowId) -> bool:
    """Whether this job is in the QA sample (deterministic per job, so a retry does not change it)."""
    rate = settings.DOCGATE_QA_SAMPLE_RATE
    if rate <= 0:
        return False
    digest = int(hashlib.sha256(str(job_id).encode()).hexdigest()[:8], 16)
    return digest / 0xFFFFFFFF < rate


class MergeStage:
    """One set of findings with provenance and conflicts, the result's confidence, and the reasons to review it."""

    name = "merge"

    def __init__(self, *, qa_sampling: bool = True) -> None:
        self.qa_sampling = qa_sampling  # off where there is no review queue to sample for (`analyze`)

    def run(self, ctx: JobContext) -> None:
        desk = ctx.desk
        ctx.findings, conflicts = rule_llm_merge(
            ctx.findings, conflict_kinds=desk.conflict_kinds, llm_answered=ctx.llm_answered, asked=desk.asked(ctx.plan)
        )
        marks_agree(ctx.answer_marks, ctx.findings)
        # Only an answer that stood (valid, grounded) can conflict: the rules' findings win over every other one.
        if conflicts:
            ctx.review_reasons.append("conflict")
        confidence = desk.confidence(ctx.findings)
        ctx.review_reasons.extend(desk.review_reasons(ctx.findings, confidence))
        if self.qa_sampling and qa_sampled(ctx.job.pk):
            ctx.review_reasons.append("qa_sample")
        ctx.summary.update({"conflicts": conflicts, "confidence": confidence})
