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


def contract_summary_template(findings: list[Finding]) -> str:
    """A deterministic risk summary: clauses found, statutory risk flags, key clauses that are missing and the
    playbook points to escalate or negotiate."""

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
    for grade, heading in (("escalate", "需上报"), ("negotiate", "需谈判")):
        points = [f"{f.get('title')}（{f.get('message')}）" for f in findings if _is_point(f, grade)]
        if points:
            parts.append(f"{heading}：{'；'.join(points)}。")
    return "".join(parts)


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
