"""Merge rule and LLM findings into one result with provenance, conflicts and a gated suggested response.

Merge rule: a clause both layers found is one finding with provenance `both`; one only the rules found is `rule`
(`unconfirmed` when the LLM answered but did not name it); one only the LLM found is `llm` and a conflict, as is a
clause the rules read as negated but the LLM reports, and a ticket category on which the two disagree (the rules'
deterministic answer stays the suggested one). Conflicts send the job to review.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings

CONFLICT_KINDS = ("clause", "ticket_category")
# Clauses whose absence a contract risk summary points out.
KEY_CONTRACT_CLAUSES = ("违约金/违约责任", "争议解决", "管辖/适用法律", "合同解除/终止")


def _by_label(findings: list[dict[str, Any]], kind: str, source: str) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for finding in findings:
        if finding["kind"] == kind and finding["source"] == source and finding.get("label"):
            grouped.setdefault(finding["label"], []).append(finding)
    return grouped


def findings_merge(findings: list[dict[str, Any]], *, llm_answered: bool) -> tuple[list[dict[str, Any]], list[dict]]:
    """Return findings with provenance and the list of conflicts between rules and LLM."""
    merged: list[dict[str, Any]] = []
    conflicts: list[dict[str, Any]] = []
    consumed: set[int] = set()
    for kind in CONFLICT_KINDS:
        rules = _by_label(findings, kind, "rule")
        llm = _by_label(findings, kind, "llm")
        for label, llm_findings in llm.items():
            rule_matches = [f for f in rules.get(label, []) if f.get("status", "stipulated") == "stipulated"]
            if rule_matches:
                first = rule_matches[0]
                first["provenance"] = "both"
                first["llm_evidence"] = llm_findings[0]["evidence"]
                first["llm_span"] = llm_findings[0]["span"]
                consumed.update(id(f) for f in llm_findings)
                continue
            negated = [f for f in rules.get(label, []) if f.get("status") == "negated"]
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
            if finding["source"] == "rule" and finding["kind"] in CONFLICT_KINDS and llm_answered:
                finding["agreement"] = "unconfirmed"
        merged.append(finding)
    return merged, conflicts


def qa_sampled(job_id: Any) -> bool:
    """Whether this job is in the QA sample (deterministic per job, so a retry does not change it)."""
    rate = settings.DOCGATE_QA_SAMPLE_RATE
    if rate <= 0:
        return False
    digest = int(hashlib.sha256(str(job_id).encode()).hexdigest()[:8], 16)
    return digest / 0xFFFFFFFF < rate


def ticket_reply_template(category: dict[str, Any] | None, urgent: bool) -> str:
    """The deterministic reply used when no model draft is available (or the draft failed the gate)."""
    if not category or not category.get("label"):
        return "您好！您反映的问题已收悉，我们将尽快核实并转交相关部门办理，办理结果将及时答复您。"
    department = category.get("department") or "相关部门"
    note = "，并已标记为紧急件优先处理" if urgent else ""
    return (
        f"您好！您反映的问题已收悉，已按“{category['label']}”类转交{department}办理{note}，"
        "办理结果将及时答复您。感谢您的监督与支持。"
    )


def contract_summary_template(findings: list[dict[str, Any]]) -> str:
    """A deterministic risk summary: clauses found, statutory risk flags and key clauses that are missing."""
    found = sorted({f["label"] for f in findings if f["kind"] == "clause" and f.get("status") == "stipulated"})
    risks = [f["message"] for f in findings if f["kind"] == "risk"]
    missing = [
        label for label in ("违约金/违约责任", "争议解决", "管辖/适用法律", "合同解除/终止") if label not in found
    ]
    parts = [f"识别到条款：{'、'.join(found) if found else '无'}。"]
    if missing:
        parts.append(f"未发现：{'、'.join(missing)}，建议补充。")
    parts.extend(f"风险提示：{message}" for message in risks)
    return "".join(parts)


def findings_summary(findings: list[dict[str, Any]]) -> str:
    """A short, trusted summary of the merged findings for the drafting prompt."""
    lines = []
    for finding in findings:
        if finding["kind"] == "ticket_category":
            lines.append(f"分类: {finding.get('label')} / {finding.get('level2') or ''} → {finding.get('department')}")
        elif finding["kind"] == "urgency":
            lines.append(f"紧急程度: {finding.get('label')}")
        elif finding["kind"] == "clause" and finding.get("status") == "stipulated":
            lines.append(f"条款: {finding['label']}")
        elif finding["kind"] == "risk":
            lines.append(f"风险: {finding['message']}")
    return "\n".join(dict.fromkeys(lines)) or "无"
