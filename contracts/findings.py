"""Turn the pure rule results of `rules/` into JSON findings whose spans point into the original text."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from rules.clauses import ClauseFinding, RiskFlag
from rules.entities import ENTITY_PACK, Entity
from rules.normalize import NormalizedText
from rules.tickets.combine import TicketClassification
from rules.tickets.urgency import Urgency


def span_original(normalized: NormalizedText, start: int, end: int) -> list[int]:
    """Map a span of the normalized text back onto what the user sent."""
    s, e = normalized.to_original(start, end)
    return [s, e]


def clause_finding(normalized: NormalizedText, finding: ClauseFinding) -> dict[str, Any]:
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


def risk_finding(normalized: NormalizedText, flag: RiskFlag) -> dict[str, Any]:
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


def entity_finding(normalized: NormalizedText, entity: Entity) -> dict[str, Any]:
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


def ticket_findings(normalized: NormalizedText, classification: TicketClassification,
                    urgency: Urgency) -> list[dict[str, Any]]:
    """The ticket's category with routing, and its urgency cues."""
    category = {
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
    urgency_finding = {
        "kind": "urgency",
        "label": urgency.level,
        "pack_version": urgency.pack_version,
        "cues": [{**asdict(cue), "span": span_original(normalized, cue.start, cue.end)} for cue in urgency.cues],
        "source": "rule",
    }
    return [category, urgency_finding]
