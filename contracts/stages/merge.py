"""The merge stage: rule and LLM findings into one result with provenance, conflicts and a gated response.

Merge rule (each side has one finding per clause type): a clause both layers found is one finding with provenance
`both` (a blank template article counts as found); one only the rules found is `rule` (`unconfirmed` when the LLM
answered but did not name it); one only the LLM found is `llm` and a conflict, as is a clause the rules read as
negated but the LLM reports, and a ticket category on which the two disagree (the rules' deterministic answer stays
the suggested one). Conflicts send the job to review.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any, Literal

from django.conf import settings

from contracts.findings import Finding
from contracts.gate import gate_decide
from contracts.llm import llm_client
from contracts.models import RowId
from contracts.stages.base import JobContext
from inference.errors import LLMError
from inference.questions import response_draft
from rules.clauses import BLANK, NEGATED, PRESENT, STIPULATED

logger = logging.getLogger(__name__)

CONFLICT_KINDS = ("clause", "ticket_category")
# Clauses whose absence a contract risk summary points out.
KEY_CONTRACT_CLAUSES = ("违约金/违约责任", "争议解决", "管辖/适用法律", "合同解除/终止")


def _by_label(findings: list[Finding], kind: str, source: str) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        label = finding.get("label")
        if finding["kind"] == kind and finding["source"] == source and label:
            grouped.setdefault(label, []).append(finding)
    return grouped


def rule_llm_merge(
    findings: list[Finding], *, llm_answered: bool, asked: Callable[[str, str], bool] = lambda kind, label: True
) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Return findings with provenance and the list of conflicts between rules and LLM. A rule finding is
    `unconfirmed` only when the model answered and was asked about it (`asked(kind, label)`: the cascade asks
    about doubtful clause types only)."""
    merged: list[Finding] = []
    conflicts: list[dict[str, Any]] = []
    consumed: set[int] = set()
    for kind in CONFLICT_KINDS:
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
            if kind == "ticket_category" and rules:
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
            if finding["source"] == "rule" and kind in CONFLICT_KINDS and llm_answered and asked(kind, label):
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


def ticket_reply_template(category: Finding | None, urgent: bool) -> str:
    """The deterministic reply used when no model draft is available (or the draft failed the gate)."""
    if not category or not category.get("label"):
        return "您好！您反映的问题已收悉，我们将尽快核实并转交相关部门办理，办理结果将及时答复您。"
    department = category.get("department") or "相关部门"
    note = "，并已标记为紧急件优先处理" if urgent else ""
    return (
        f"您好！您反映的问题已收悉，已按“{category['label']}”类转交{department}办理{note}，"
        "办理结果将及时答复您。感谢您的监督与支持。"
    )


def contract_summary_template(findings: list[Finding]) -> str:
    """A deterministic risk summary: clauses found, statutory risk flags and key clauses that are missing."""

    def labels(status: str) -> list[str]:
        clauses = [f for f in findings if f["kind"] == "clause" and f.get("status") == status]
        return sorted({label for f in clauses if (label := f.get("label"))})

    found, blank = labels(STIPULATED), labels(BLANK)
    risks = [f["message"] for f in findings if f["kind"] == "risk"]
    missing = [label for label in KEY_CONTRACT_CLAUSES if label not in found and label not in blank]
    parts = [f"识别到条款：{'、'.join(found) if found else '无'}。"]
    if blank:
        parts.append(f"待填写：{'、'.join(blank)}（模板条款尚未填写内容）。")
    if missing:
        parts.append(f"未发现：{'、'.join(missing)}，建议补充。")
    parts.extend(f"风险提示：{message}" for message in risks)
    return "".join(parts)


def findings_summary(findings: list[Finding]) -> str:
    """A short, trusted summary of the merged findings for the drafting prompt."""
    lines = []
    for finding in findings:
        if finding["kind"] == "ticket_category":
            lines.append(f"分类: {finding.get('label')} / {finding.get('level2') or ''} → {finding.get('department')}")
        elif finding["kind"] == "urgency":
            lines.append(f"紧急程度: {finding.get('label')}")
        elif finding["kind"] == "clause" and finding.get("status") == STIPULATED:
            lines.append(f"条款: {finding['label']}")
        elif finding["kind"] == "risk":
            lines.append(f"风险: {finding['message']}")
    return "\n".join(dict.fromkeys(lines)) or "无"


class MergeStage:
    """One result: merged findings with provenance, conflicts, a gated suggested response, routing reasons."""

    name = "merge"

    def __init__(self, *, qa_sampling: bool = True) -> None:
        self.qa_sampling = qa_sampling  # off where there is no review queue to sample for (`analyze`)

    def run(self, ctx: JobContext) -> None:
        llm_answered = ctx.llm_answered
        ctx.findings, conflicts = rule_llm_merge(ctx.findings, llm_answered=llm_answered, asked=self._asked(ctx))
        if conflicts:
            ctx.review_reasons.append("conflict")
        confidence = self._confidence(ctx)
        if ctx.document.kind == "ticket" and confidence.get("category", 0.0) < settings.DOCGATE_MIN_CONFIDENCE:
            ctx.review_reasons.append("low_confidence")
        if self.qa_sampling and qa_sampled(ctx.job.pk):
            ctx.review_reasons.append("qa_sample")
        text, response = self._response(ctx, llm_answered)
        ctx.summary.update(
            {
                "gate": ctx.decided_gate().as_dict(),
                "conflicts": conflicts,
                "confidence": confidence,
                "suggested_response": text,
                "response": response,
                "routing": {
                    "needs_review": bool(ctx.review_reasons),
                    "reasons": list(dict.fromkeys(ctx.review_reasons)),
                },
            }
        )

    @staticmethod
    def _asked(ctx: JobContext) -> Callable[[str, str], bool]:
        """Whether the model was asked about a clause type or the ticket category."""
        plan = ctx.plan
        if plan is None:
            return lambda kind, label: True
        clauses = plan.question("clauses")
        labels = set(clauses.labels) if clauses is not None else set()
        category = plan.question("ticket_category") is not None
        return lambda kind, label: label in labels if kind == "clause" else category

    def _category(self, ctx: JobContext) -> Finding | None:
        return next((f for f in ctx.findings if f["kind"] == "ticket_category" and f["source"] == "rule"), None)

    def _confidence(self, ctx: JobContext) -> dict[str, float]:
        if ctx.document.kind != "ticket":
            clauses = [f["confidence"] for f in ctx.findings if f["kind"] == "clause" and "confidence" in f]
            return {"clauses": round(min(clauses), 4)} if clauses else {}
        category = self._category(ctx)
        if category is None or not category.get("label"):
            return {"category": 0.0}
        value = float(category.get("confidence") or 0.0)
        if category.get("provenance") == "both":
            value = 1 - (1 - value) * 0.5  # two independent layers agreeing halve the doubt
        return {"category": round(value, 4)}

    def _response(self, ctx: JobContext, llm_answered: bool) -> tuple[str | None, dict[str, Any]]:
        """Draft (model, else template), gate the draft, and withhold it when the input gate blocked."""
        is_ticket = ctx.document.kind == "ticket"
        category = self._category(ctx) if is_ticket else None
        urgency = next((f["label"] for f in ctx.findings if f["kind"] == "urgency" and f["source"] == "rule"), None)
        template = (
            ticket_reply_template(category, urgency == "urgent")
            if is_ticket
            else contract_summary_template(ctx.findings)
        )
        wants_draft = ctx.plan.question("draft") is not None if ctx.plan is not None else settings.LLM_DRAFTS
        draft, source = (self._llm_draft(ctx), "llm") if llm_answered and wants_draft else (None, "template")
        if draft is None:
            draft, source = template, "template"
        organisation = ctx.document.organisation.slug
        output_gate = gate_decide(text=draft, kind="outgoing", organisation=organisation, use_llm=source == "llm")
        if output_gate.decision == "block" and source == "llm":
            draft, source = template, "template"
            output_gate = gate_decide(text=draft, kind="outgoing", organisation=organisation, use_llm=False)
        input_decision = ctx.decided_gate().decision
        if output_gate.decision == "block" or input_decision == "block":
            status = "withheld"
        elif output_gate.decision == "review" or input_decision == "review":
            status = "pending_review"
        else:
            status = "ready"
        if output_gate.decision == "review":
            ctx.review_reasons.append("output_gate_review")
        response = {
            "status": status,
            "source": source,
            "output_gate": output_gate.as_dict(),
            "category": category.get("label") if category else None,
            "level2": category.get("level2") if category else None,
            "department": category.get("department") if category else None,
            "urgency": urgency,
        }
        return (None if status == "withheld" else draft), response

    def _llm_draft(self, ctx: JobContext) -> str | None:
        kind: Literal["ticket", "contract"] = "ticket" if ctx.document.kind == "ticket" else "contract"
        try:
            result = response_draft(llm_client(), kind, ctx.normalized_text().text, findings_summary(ctx.findings))
        except LLMError as exc:
            logger.info("job %s: no model draft (%s); using the template", ctx.job.pk, exc)
            return None
        assert ctx.llm is not None, "a draft is asked for only when the model answered"
        ctx.llm.tasks["response_draft"] = {
            "prompt_version": result.prompt_version,
            "calls": result.calls,
            "llm_latency_ms": result.llm_latency_ms,
            "invalid_outputs": result.invalid_outputs,
        }
        draft = (result.output_text or "").strip()
        return draft or None
