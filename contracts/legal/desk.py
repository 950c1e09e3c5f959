"""The legal desk's handler: what a contract's rules run (clauses, statutory checks, the organisation's playbook),
what the cascade asks about it, its risk summary."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from contracts.cascade import CascadeSettings, LLMPlan, Question
from contracts.desks import ModelAnswer, RuleOutput
from contracts.findings import Finding
from contracts.learned.clauses import clause_model_current
from contracts.legal.findings import clause_finding, llm_clause_findings, playbook_finding, risk_finding, term_finding
from contracts.legal.playbooks import contract_playbook
from contracts.legal.term_values import TERM_NAMES
from contracts.models import Result
from inference.chunking import Chunk
from inference.client import LLMClient
from inference.questions import clause_prompt_values, clauses_extract
from rules.clauses import BLANK, NEGATED, STIPULATED, clause_groups, risk_checks
from rules.clauses.statutes import contract_type
from rules.contract_terms import TERMS_PACK, key_terms
from rules.normalize import NormalizedText
from rules.playbook import playbook_review

DOUBTFUL_STATUSES = frozenset({NEGATED, "referenced"})
# Clauses whose absence a contract risk summary points out.
KEY_CONTRACT_CLAUSES = ("违约金/违约责任", "争议解决", "管辖/适用法律", "合同解除/终止")


def _is_point(finding: Finding, grade: str) -> bool:
    """Whether a finding is a playbook point of this grade."""
    return finding["kind"] == "playbook" and finding.get("grade") == grade


# What the law fills in when a key clause is missing: the consequence a lawyer weighs, not only the gap.
MISSING_CONSEQUENCES = {
    "违约金/违约责任": "违约时只能按实际损失索赔并自行举证（民法典第584条），建议约定违约金或其计算方法",
    "争议解决": "争议只能向被告住所地或合同履行地法院起诉（民事诉讼法第24条），建议约定仲裁机构或管辖法院",
    "管辖/适用法律": "管辖法院与适用法律只能按法律规定确定，建议明确约定",
    "合同解除/终止": "只能依法定事由解除（民法典第563条），建议约定解除条件、通知期限与解除后的结算",
}


def contract_summary_template(findings: list[Finding]) -> str:
    """A deterministic summary a lawyer can decide on: playbook points to escalate, statutory risks, points to
    negotiate, key clauses missing (with what the law then says), blanks still to fill, and last what is agreed."""

    def labels(status: str) -> list[str]:
        clauses = [f for f in findings if f["kind"] == "clause" and f.get("status") == status]
        return sorted({label for f in clauses if (label := f.get("label"))})

    def points(grade: str) -> list[str]:
        return [f"{f.get('title')}（{f.get('message')}）" for f in findings if _is_point(f, grade)]

    found, blank = labels(STIPULATED), labels(BLANK)
    blank_terms = sorted(
        {TERM_NAMES.get(str(f.get("label")), str(f.get("label"))) for f in findings if _is_blank_term(f)}
    )
    missing = [label for label in KEY_CONTRACT_CLAUSES if label not in found and label not in blank]
    parts: list[str] = []
    if escalate := points("escalate"):
        parts.append(f"需上报：{'；'.join(escalate)}。")
    parts.extend(f"风险提示：{f['message']}" for f in findings if f["kind"] == "risk")
    if negotiate := points("negotiate"):
        parts.append(f"需谈判：{'；'.join(negotiate)}。")
    parts.extend(f"未约定{label}：{MISSING_CONSEQUENCES[label]}。" for label in missing)
    if blank or blank_terms:
        parts.append(f"待填写：{'、'.join([*blank, *blank_terms])}（模板尚未填写，签署前补全或删除）。")
    parts.append(f"已约定条款：{'、'.join(found) if found else '无'}。")
    return "".join(parts)


def _is_blank_term(finding: Finding) -> bool:
    """Whether a finding is a key term the template leaves blank."""
    return finding["kind"] == "term" and finding.get("status") == "blank"


def clause_doubts(findings: list[Finding], threshold: float) -> dict[str, tuple[str, list[tuple[int, int]]]]:
    """Clause types the rules are unsure of: the reason for each and where its rule evidence lies (original
    spans of the finding and of its other occurrences)."""
    doubts: dict[str, tuple[str, list[tuple[int, int]]]] = {}
    for finding in findings:
        label = finding.get("label")
        if finding["kind"] != "clause" or finding.get("source") != "rule" or not label:
            continue
        status = finding.get("status", STIPULATED)
        occurrences = finding.get("occurrences", [])
        statuses = {status, *(o.get("status") for o in occurrences)}
        if STIPULATED in statuses and NEGATED in statuses:
            reason = "conflict: stipulated in one place, negated in another"
        elif status in DOUBTFUL_STATUSES:
            reason = f"rule evidence is {status}"
        elif status != BLANK and float(finding.get("confidence", 1.0)) < threshold:
            reason = f"weak rule evidence ({float(finding['confidence']):.2f} < {threshold})"
        else:
            continue
        spans = [(int(s[0]), int(s[1])) for s in (finding.get("span"), *(o.get("span") for o in occurrences)) if s]
        doubts[label] = (reason, spans)
    return doubts


def evidence_chunks(normalized: NormalizedText, spans: Sequence[tuple[int, int]]) -> Callable[[Chunk], bool]:
    """Accept the chunks (of the normalized text) that overlap one of `spans` (of the original text)."""

    def wanted(chunk: Chunk) -> bool:
        start, end = normalized.to_original(chunk.offset, chunk.end)
        return any(s < end and start < e for s, e in spans)

    return wanted


class LegalDesk:
    """Contracts: one finding per clause type, the statutory risk checks and the key terms (parties, dates,
    price, 违约金 … as values); the model is asked about the clause
    types the rules are unsure of; the suggested response is a risk summary."""

    kind: Literal["contract"] = "contract"
    conflict_kinds: Mapping[str, bool] = {"clause": False}

    def rule_findings(self, normalized: NormalizedText, *, organisation: str) -> RuleOutput:
        text = normalized.text
        groups, analysis = clause_groups(text, model=clause_model_current(organisation))
        findings: list[Finding] = [clause_finding(normalized, group) for group in groups]
        kind = contract_type(text).kind
        playbook = contract_playbook(organisation)
        flags = risk_checks(text, analysis.findings, kind=kind, minimum_wage=playbook.minimum_wage)
        findings.extend(risk_finding(normalized, flag, kind) for flag in flags)
        points = playbook_review(text, analysis.findings, playbook, kind=kind)
        findings.extend(playbook_finding(normalized, point, playbook, kind) for point in points)
        findings.extend(term_finding(normalized, term) for term in key_terms(text))
        versions = {"clauses": groups[0].primary.pack_version} if groups else {}
        return RuleOutput(
            findings, {**versions, "playbook": f"{playbook.pack}@{playbook.version}", TERMS_PACK[0]: TERMS_PACK[1]}
        )

    def stored_findings(self, document: Any, normalized: NormalizedText) -> list[Finding]:
        return []  # a contract is compared with no stored history

    def plan_questions(self, findings: list[Finding], knobs: CascadeSettings) -> list[tuple[Question, bool]]:
        if knobs.policy == "always":
            return [(Question("clauses", "policy always", knobs.clause_labels), True)]
        doubts = clause_doubts(findings, knobs.clause_confidence)
        labels = tuple(label for label in knobs.clause_labels if label in doubts)
        reason = "; ".join(f"{label}: {doubts[label][0]}" for label in labels)
        spans = tuple(sorted({span for label in labels for span in doubts[label][1]}))
        question = Question(
            "clauses", reason or "skipped: the rules read every clause they found plainly", labels, spans
        )
        return [(question, bool(labels))]

    def question_prompts(self, plan: LLMPlan) -> list[tuple[str, dict[str, str]]]:
        clauses = plan.question("clauses")
        return [] if clauses is None else [("clause_extraction", clause_prompt_values(clauses.labels))]

    def questions_ask(
        self, plan: LLMPlan, client: LLMClient, normalized: NormalizedText, *, budget: int | None
    ) -> list[ModelAnswer]:
        clauses = plan.question("clauses")
        if clauses is None:
            return []
        wanted = evidence_chunks(normalized, clauses.spans) if clauses.spans else None
        result = clauses_extract(client, normalized.text, clauses.labels, budget=budget, chunk_wanted=wanted)
        return [ModelAnswer(result, llm_clause_findings(normalized, result.findings, result.prompt_version))]

    def asked(self, plan: LLMPlan | None) -> Callable[[str, str], bool]:
        if plan is None:
            return lambda kind, label: True
        clauses = plan.question("clauses")
        labels = set(clauses.labels) if clauses is not None else set()
        return lambda kind, label: label in labels

    def confidence(self, findings: list[Finding]) -> dict[str, float]:
        clauses = [f["confidence"] for f in findings if f["kind"] == "clause" and "confidence" in f]
        return {"clauses": round(min(clauses), 4)} if clauses else {}

    def review_reasons(self, findings: list[Finding], confidence: Mapping[str, float]) -> list[str]:
        return []

    def response_template(self, findings: list[Finding], *, source: str, organisation: Any) -> str:
        return contract_summary_template(findings)

    def response_check(
        self, text: str, findings: list[Finding], *, source: str, organisation: Any
    ) -> list[dict[str, Any]]:
        return []  # a risk summary for the legal team, not a reply to a citizen

    def response_fields(self, findings: list[Finding]) -> dict[str, Any]:
        return {}

    def draft_facts(self, findings: list[Finding]) -> str:
        lines = []
        for finding in findings:
            if finding["kind"] == "clause" and finding.get("status") == STIPULATED:
                lines.append(f"条款: {finding['label']}")
            elif finding["kind"] == "risk":
                lines.append(f"风险: {finding['message']}")
        return "\n".join(dict.fromkeys(lines)) or "无"

    def result_stored(self, result: Result) -> None:
        """A contract derives nothing from its results (it has no deadline)."""
        return None
