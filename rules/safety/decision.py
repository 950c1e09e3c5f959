"""Pure gate decisions: rules-only allow/review/block with reasons, the rules+LLM combination, output leaks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from rules.entities.model import Entity
from rules.pii import pii_spans
from rules.safety.scorer import SafetyAssessment

Decision = Literal["allow", "review", "block"]

DEFAULT_REVIEW_THRESHOLD = 0.5
DEFAULT_BLOCK_THRESHOLD = 0.85
# Identifiers that must never leave in generated text. Names and addresses are not here: a reply draft
# addresses the citizen ("张先生您好") and names the department's address by design.
LEAK_LABELS = frozenset({"PHONE", "ID_NUMBER", "BANK_CARD", "EMAIL"})
# Categories in which a ticket may be blocked: a harmful request or a threat against someone. Abuse, prejudice,
# self-harm and personal data in a citizen's own message are routed to a person, never blocked.
TICKET_BLOCKABLE = frozenset({"违法犯罪", "侵犯权益", "violence_threat", "sexual", "prompt_injection"})
# A ticket hit only blocks when its context shows the writer asks for or does the harm, not when it is mentioned.
_REQUEST_CONTEXTS = frozenset({"intent", "stealth", "solicit", "coercion"})


def output_leaks(text: str, *, labels: Iterable[str] = LEAK_LABELS) -> list[Entity]:
    """Personal identifiers (phone, resident ID with checksum, bank card, e-mail) in an outgoing generated text."""
    wanted = frozenset(labels)
    return [entity for entity in pii_spans(text) if entity.label in wanted]


def _blocking_for_ticket(assessment: SafetyAssessment, category: str) -> bool:
    """Whether a ticket's category score comes from a request or threat rather than a mention."""
    if category not in TICKET_BLOCKABLE:
        return False
    if category in ("violence_threat", "prompt_injection"):
        # A direct threat ("杀了你") and an injection both carry their intent in the words themselves.
        return any(hit.category == category and not hit.context.startswith("mitigated") for hit in assessment.hits)
    return any(hit.category == category and hit.context in _REQUEST_CONTEXTS for hit in assessment.hits)


def _reasons(assessment: SafetyAssessment, threshold: float) -> list[str]:
    """One reason per category at or above `threshold`: score and the strongest hit behind it."""
    reasons = []
    for category, score in sorted(assessment.categories.items(), key=lambda item: (-item[1], item[0])):
        if score < threshold:
            continue
        hit = max((h for h in assessment.hits if h.category == category), key=lambda h: h.weight)
        context = f" +{hit.context}" if hit.context else ""
        reasons.append(f"{category} {score:.2f}: {hit.rule_id} '{hit.term}'{context}")
    return reasons


def gate_decide_rules(
    assessment: SafetyAssessment,
    *,
    review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
    block_threshold: float = DEFAULT_BLOCK_THRESHOLD,
    is_ticket: bool = False,
    leaks: Iterable[Entity] = (),
) -> tuple[Decision, tuple[str, ...]]:
    """Rules-only decision and its reasons; raise ValueError when the thresholds are out of order.

    - risk ≥ block_threshold → block; risk ≥ review_threshold → review; else allow.
    - Any personal identifier in `leaks` (from `output_leaks` on an outgoing text) → block: it is not sent.
    - A ticket (citizen input, `is_ticket`) is capped at review unless a category in TICKET_BLOCKABLE reaches the
      block threshold through a request/threat context: a complaint, however angry, is routed, never blocked.
    """
    if not 0.0 <= review_threshold <= block_threshold <= 1.0:
        raise ValueError("thresholds must satisfy 0 <= review_threshold <= block_threshold <= 1")
    leak_reasons = [f"pii_leak: {entity.label} at {entity.start}-{entity.end}" for entity in leaks]
    reasons = leak_reasons + _reasons(assessment, review_threshold)
    if leak_reasons:
        return "block", tuple(reasons)
    if assessment.risk >= block_threshold:
        blocking = [c for c, score in assessment.categories.items() if score >= block_threshold]
        if not is_ticket or any(_blocking_for_ticket(assessment, category) for category in blocking):
            return "block", tuple(reasons)
        return "review", (*reasons, "ticket: capped at review (a complaint is routed, not blocked)")
    if assessment.risk >= review_threshold:
        return "review", tuple(reasons)
    return "allow", ()


def gate_combine(
    rule_risk: float,
    llm_risk: float | None,
    *,
    review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
    block_threshold: float = DEFAULT_BLOCK_THRESHOLD,
    llm_weight: float = 1.0,
) -> tuple[Decision, float, tuple[str, ...]]:
    """Combine rule and LLM risk into (decision, risk, reasons); raise ValueError for risks outside [0, 1].

    The combined risk is max(rule_risk, llm_weight x llm_risk): either layer alone can raise an item, none can
    lower the other's finding (a lexicon hit is evidence the model must not talk away, and the model catches
    paraphrases the lexicon misses). `llm_weight` < 1 discounts a small model. Without an LLM score (server
    down, `--llm off`) the rules decide alone and a flagged item says so: the result is degraded.
    """
    if not 0.0 <= rule_risk <= 1.0 or (llm_risk is not None and not 0.0 <= llm_risk <= 1.0):
        raise ValueError("risks must lie in [0, 1]")
    if not 0.0 <= review_threshold <= block_threshold <= 1.0:
        raise ValueError("thresholds must satisfy 0 <= review_threshold <= block_threshold <= 1")
    reasons = [f"rules {rule_risk:.2f}"]
    risk = rule_risk
    if llm_risk is None:
        reasons.append("llm unavailable: rules only")
    else:
        weighted = llm_weight * llm_risk
        reasons.append(f"llm {llm_risk:.2f}" + (f" (x{llm_weight:g})" if llm_weight != 1.0 else ""))
        risk = max(rule_risk, weighted)
    if risk >= block_threshold:
        decision: Decision = "block"
    elif risk >= review_threshold:
        decision = "review"
    else:
        decision = "allow"
    return decision, round(risk, 4), tuple(reasons)
