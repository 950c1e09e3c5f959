"""Findings: the one record every layer's answer becomes, born here from rule results and LLM answers.

A finding is a JSON object (it is stored in the result as it is), typed as `Finding`: merge, review, the portal
and the API read these keys. Spans point into the original text the user sent.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Required, TypedDict, cast

from inference.results import LLMFinding
from rules.clauses import ClauseFinding, RiskFlag
from rules.entities import ENTITY_PACK, Entity
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
    status: str  # clause: stipulated | negated
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


def clause_finding(normalized: NormalizedText, finding: ClauseFinding) -> Finding:
    """A clause finding: label, CUAD name, rule, pack version, spans (original and normalized), status."""
    return {
        "kind": "clause",
        "label": finding.label,
        "cuad": finding.cuad,
        "rule_id": finding.rule_id,
        "pack_version": finding.pack_version,
        "span": span_original(normalized, finding.start, finding.end),
        "match_span": span_original(normalized, finding.match_start, finding.match_end),
        "normalized_span": [finding.start, finding.end],
        "confidence": finding.confidence,
        "status": finding.status,
        "evidence": finding.evidence,
        "matched": finding.matched,
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


def entity_finding(normalized: NormalizedText, entity: Entity) -> Finding:
    """An entity with its value; PII is flagged so that logs and exports mask it."""
    return {
        "kind": "entity",
        "label": entity.label,
        "span": span_original(normalized, entity.start, entity.end),
        "text": entity.text,
        "value": entity.value,
        "is_pii": entity.is_pii,
        "rule_id": entity.rule_id,
        "pack_version": ENTITY_PACK[1],
        "source": "rule",
    }


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
        "evidence": [{"term": hit.term, "rule_id": hit.rule_id,
                      "span": span_original(normalized, hit.start, hit.end)} for hit in classification.evidence],
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


def llm_clause_finding(normalized: NormalizedText, finding: LLMFinding, prompt_version: str) -> Finding:
    """A clause the model found, with the quote that grounds it."""
    return {
        "kind": "clause",
        "label": finding.label,
        "span": span_original(normalized, finding.start, finding.end),
        "normalized_span": [finding.start, finding.end],
        "evidence": finding.quote,
        "status": "stipulated",
        "source": "llm",
        "prompt_version": prompt_version,
    }


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
