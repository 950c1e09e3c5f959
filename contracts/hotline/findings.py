"""The hotline desk's findings: the ticket's category with its routing, its urgency, and the model's category."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, cast

from contracts.findings import CaseFinding, Finding, span_original
from inference.answers import LLMFinding
from rules.normalize import NormalizedText
from rules.tickets.combine import TicketClassification
from rules.tickets.repeats import RepeatMatch
from rules.tickets.urgency import Urgency


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
        "department_source": classification.department_source,
        "department_version": classification.department_version,
        "alternatives": [
            {
                "label": a.label,
                "probability": a.probability,
                "department": a.department,
                "department_source": a.department_source,
                "level2": list(a.level2),
                "level3": list(a.level3),
            }
            for a in classification.alternatives
        ],
        "routing": {
            "probability": classification.probability,
            "threshold": classification.threshold,
            "needs_dispatcher": classification.needs_dispatcher,
        },
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


def case_finding(
    case_id: str, joined_by: str, match: RepeatMatch | None, earlier: list[dict[str, Any]], threshold: float
) -> CaseFinding:
    """The ticket's repeat case: its id, how the ticket joined, the ticket it repeats and the earlier tickets."""
    finding: CaseFinding = {
        "kind": "repeat_case",
        "label": "repeat" if earlier else "new",
        "case_id": case_id,
        "joined_by": joined_by,
        "repeats": match.ticket_id if match is not None else None,
        "earlier_tickets": earlier,
        "rule_id": "tickets.repeat_case",
        "source": "rule",
    }
    if match is not None:
        finding["similarity"] = {**match.evidence.as_dict(), "threshold": threshold}
        finding["confidence"] = min(1.0, match.score)
    return finding


def rule_category(findings: list[Finding]) -> Finding | None:
    """The rules' (or the organisation's classifier's) category finding, if any."""
    return next((f for f in findings if f["kind"] == "ticket_category" and f["source"] == "rule"), None)


def rule_urgency(findings: list[Finding]) -> str | None:
    """The rules' urgency level, if any."""
    return next((f["label"] for f in findings if f["kind"] == "urgency" and f["source"] == "rule"), None)
