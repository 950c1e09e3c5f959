"""The legal desk's findings: one per clause type, the statutory risk flags, the playbook's graded points, and the
model's grounded clauses."""

from __future__ import annotations

from collections.abc import Sequence

from contracts.findings import (
    ClauseFinding,
    Finding,
    PlaybookFinding,
    RiskFinding,
    StatuteArticle,
    TermFinding,
    span_original,
)
from inference.answers import LLMFinding
from rules.clauses import ClauseGroup, RiskFlag
from rules.clauses.statutes import Article
from rules.contract_terms import TERMS_PACK, KeyTerm, value_json
from rules.normalize import NormalizedText
from rules.playbook import Playbook, PlaybookPoint


def clause_finding(normalized: NormalizedText, group: ClauseGroup) -> ClauseFinding:
    """One clause type: the primary finding's spans and evidence, status, confidence, rules, model score and
    every other occurrence (original spans; `normalized_span` is the primary's span in the normalized text)."""
    primary = group.primary
    return {
        "kind": "clause",
        "label": group.label,
        "cuad": group.cuad,
        "rule_id": primary.rule_id,
        "rule_ids": list(group.rule_ids),
        "pack_version": primary.pack_version,
        "span": span_original(normalized, primary.start, primary.end),
        "match_span": span_original(normalized, primary.match_start, primary.match_end),
        "normalized_span": [primary.start, primary.end],
        "confidence": group.confidence,
        "model_score": group.model_score,
        "status": group.status,
        "evidence": primary.evidence,
        "matched": primary.matched,
        "occurrences": [
            {
                "span": span_original(normalized, other.start, other.end),
                "match_span": span_original(normalized, other.match_start, other.match_end),
                "status": other.status,
                "rule_id": other.rule_id,
                "confidence": other.confidence,
                "matched": other.matched,
            }
            for other in group.others
        ],
        "source": "rule",
    }


def article_data(article: Article) -> StatuteArticle:
    """An article as a finding carries it."""
    return {"law": article.law, "number": article.number, "gist": article.gist}


def risk_finding(normalized: NormalizedText, flag: RiskFlag, contract_type: str) -> RiskFinding:
    """A statutory risk flag with its legal basis, article and evidence spans."""
    finding: RiskFinding = {
        "kind": "risk",
        "label": flag.code,
        "severity": flag.severity,
        "message": flag.message,
        "basis": flag.basis,
        "contract_type": contract_type,
        "spans": [span_original(normalized, s, e) for s, e in flag.evidence],
        "source": "rule",
    }
    if flag.article is not None:
        finding["article"] = article_data(flag.article)
    return finding


def playbook_finding(
    normalized: NormalizedText, point: PlaybookPoint, playbook: Playbook, contract_type: str
) -> PlaybookFinding:
    """A playbook rule's grade on the contract, with its evidence spans and the statute where one applies."""
    return {
        "kind": "playbook",
        "label": point.rule_id,
        "rule_id": point.rule_id,
        "rule_kind": point.kind,
        "title": point.title,
        "grade": point.grade,  # type: ignore[typeddict-item]  # one of rules.playbook.GRADES
        "message": point.message,
        "basis": point.article.citation if point.article else None,
        "article": article_data(point.article) if point.article else None,
        "suggestion": point.suggestion,
        "playbook": f"{playbook.pack}@{playbook.version}",
        "pack_version": playbook.version,
        "contract_type": contract_type,
        "spans": [span_original(normalized, s, e) for s, e in point.evidence],
        "source": "rule",
    }


def term_finding(normalized: NormalizedText, term: KeyTerm) -> TermFinding:
    """A key term: its kind as label, normalised value, status (agreed or blank), span and confidence; the
    sentence it was read from is its evidence."""
    return {
        "kind": "term",
        "label": term.kind,
        "span": span_original(normalized, term.start, term.end),
        "normalized_span": [term.start, term.end],
        "value": value_json(term.value),
        "normalised": term.normalised(),
        "status": term.status,
        "confidence": term.confidence,
        "evidence": term.quote,
        "rule_id": term.rule_id,
        "pack_version": TERMS_PACK[1],
        "source": "rule",
    }


def llm_clause_findings(normalized: NormalizedText, found: Sequence[LLMFinding], prompt_version: str) -> list[Finding]:
    """The clauses the model found, one per clause type: its first quote grounds it, later ones are occurrences."""
    by_label: dict[str, list[LLMFinding]] = {}
    for finding in found:
        by_label.setdefault(finding.label, []).append(finding)
    out: list[Finding] = []
    for label, quotes in by_label.items():
        first, *rest = sorted(quotes, key=lambda f: (f.start, f.end))
        out.append(
            {
                "kind": "clause",
                "label": label,
                "span": span_original(normalized, first.start, first.end),
                "normalized_span": [first.start, first.end],
                "evidence": first.quote,
                "status": "stipulated",
                "occurrences": [
                    {"span": span_original(normalized, f.start, f.end), "status": "stipulated"} for f in rest
                ],
                "source": "llm",
                "prompt_version": prompt_version,
            }
        )
    return out
