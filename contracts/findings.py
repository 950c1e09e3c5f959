"""Findings: the one record every layer's answer becomes, born here from rule results and LLM answers.

A finding is a JSON object (it is stored in the result as it is), typed as `Finding`: merge, review, the portal
and the API read these keys. Spans point into the original text the user sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Required, TypedDict, cast

from inference.answers import LLMFinding
from rules.clauses import ClauseGroup, RiskFlag
from rules.entities import ENTITY_PACK, EntityGroup
from rules.normalize import NormalizedText
from rules.tickets.combine import TicketClassification
from rules.tickets.urgency import Urgency


class Finding(TypedDict, total=False):
    """One finding of a result. `kind`: clause | risk | entity | ticket_category | urgency; `source`: rule | llm."""

    id: str  # F1, F2 ... once the result is stored
    kind: Required[str]
    label: str | None
    source: Required[str]
    span: list[int]
    spans: list[list[int]]  # risk: every piece of evidence
    match_span: list[int]
    normalized_span: list[int]
    evidence: str | list[dict[str, Any]]  # the quoted text; a ticket category's term hits
    status: str  # clause: stipulated | blank (unfilled template article) | negated | referenced
    occurrences: list[dict[str, Any]]  # clause: every other place the clause type is found (span, match_span …)
    model_score: float | None  # clause: the heading model's best probability for the type, None without one
    mentions: list[dict[str, Any]]  # entity: every mention of the group (span, text, rule_id)
    roles: list[str]  # entity PARTY: the role words that refer to the party (甲方, 委托方)
    definition_span: list[int]  # entity PARTY: where the party is defined (甲方：某某公司)
    confidence: float
    rule_id: str
    rule_ids: list[str]
    pack_version: str
    prompt_version: str
    cuad: str | None
    matched: str
    severity: str
    message: str
    basis: str
    text: str
    value: Any
    is_pii: bool
    level2: str | None
    level3: str | None
    department: str | None
    decided_by: str
    agreement: bool | str | None  # ticket: did rules and classifier agree; after the merge, "unconfirmed"
    rules_label: str | None
    classifier_label: str | None
    model_version: str | None
    cues: list[dict[str, Any]]
    # Set by the merge: which layers found it, what the model quoted, and a conflict between the two.
    provenance: str
    llm_evidence: str | list[dict[str, Any]]
    llm_span: list[int]
    conflict: str
    # Set by a review (`contracts.review.result`): the decision, a correction's previous values, the note.
    review: str  # unreviewed | approved | corrected | rejected
    original: dict[str, Any]
    review_note: str


def span_original(normalized: NormalizedText, start: int, end: int) -> list[int]:
    """Map a span of the normalized text back onto what the user sent."""
    s, e = normalized.to_original(start, end)
    return [s, e]


def clause_finding(normalized: NormalizedText, group: ClauseGroup) -> Finding:
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


def risk_finding(normalized: NormalizedText, flag: RiskFlag) -> Finding:
    """A statutory risk flag with its legal basis and evidence spans."""
    return {
        "kind": "risk",
        "label": flag.code,
        "severity": flag.severity,
        "message": flag.message,
        "basis": flag.basis,
        "spans": [span_original(normalized, s, e) for s, e in flag.evidence],
        "source": "rule",
    }


def entity_finding(normalized: NormalizedText, group: EntityGroup) -> Finding:
    """One entity group: label, display text, normalised value, every mention; a party's roles and definition.
    PII is flagged so that logs, exports and the portal mask the text of every mention."""
    first = group.definition or group.mentions[0]
    finding: Finding = {
        "kind": "entity",
        "label": group.label,
        "span": span_original(normalized, first.start, first.end),
        "text": group.text,
        "value": group.value,
        "is_pii": group.is_pii,
        "rule_id": first.rule_id,
        "rule_ids": list(group.rule_ids),
        "mentions": [
            {"span": span_original(normalized, m.start, m.end), "text": m.text, "rule_id": m.rule_id}
            for m in group.mentions
        ],
        "pack_version": ENTITY_PACK[1],
        "source": "rule",
    }
    if group.label == "PARTY":
        finding["roles"] = list(group.roles)
        if group.definition is not None:
            finding["definition_span"] = finding["span"]
    return finding


def ticket_findings(
    normalized: NormalizedText, classification: TicketClassification, urgency: Urgency
) -> list[Finding]:
    """The ticket's category with routing, and its urgency cues."""
    category: Finding = {
        "kind": "ticket_category",
        "label": classification.label,
        "level2": classification.level2,
        "level3": classification.level3,
        "department": classification.department,
        "confidence": classification.confidence,
        "decided_by": classification.source,
        "agreement": classification.agreement,
        "rules_label": classification.rules_label,
        "classifier_label": classification.classifier_label,
        "model_version": classification.model_version,
        "rule_ids": list(classification.rule_ids),
        "pack_version": classification.pack_version,
        "evidence": [
            {"term": hit.term, "rule_id": hit.rule_id, "span": span_original(normalized, hit.start, hit.end)}
            for hit in classification.evidence
        ],
        "source": "rule",
    }
    urgency_finding: Finding = {
        "kind": "urgency",
        "label": urgency.level,
        "pack_version": urgency.pack_version,
        "cues": [{**asdict(cue), "span": span_original(normalized, cue.start, cue.end)} for cue in urgency.cues],
        "source": "rule",
    }
    return [category, urgency_finding]


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


def llm_ticket_finding(normalized: NormalizedText, finding: LLMFinding, prompt_version: str) -> Finding:
    """The model's ticket category (with its taxonomy path and department) or urgency."""
    out: dict[str, Any] = {
        "kind": "ticket_category" if finding.kind == "category" else "urgency",
        "label": finding.label,
        **dict(finding.attributes),
        "span": span_original(normalized, finding.start, finding.end),
        "evidence": finding.quote,
        "source": "llm",
        "prompt_version": prompt_version,
    }
    return cast(Finding, out)  # the attributes are a Finding's taxonomy keys (level2, level3, department)
