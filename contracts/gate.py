"""The safety gate: rules lexicon plus the LLM's yes/no policy answer, decided into allow / review / block.

Decision (documented for operators):
- The rules score the text (`rules.safety`); `gate_decide_rules` turns that into a decision, and caps a citizen's
  ticket at `review` unless it is a clear harmful request or threat.
- When the LLM is on, it is asked one yes/no policy question; P(yes) from the first token's log-probabilities is its
  risk. Risk ≥ SAFETY_BLOCK_THRESHOLD blocks a contract and sends a ticket to review; ≥ SAFETY_REVIEW_THRESHOLD
  sends either to review. The LLM can only raise the rules' decision, never lower it, so a document cannot talk its
  way past the gate.
- A model that cannot answer yes/no (a base model) or a server that is down leaves the rules' decision alone and is
  recorded; an outage already routes the job to review through the LLM stage.
- Outgoing generated text (reply draft, summary) is gated the same way, and any phone, resident ID, bank card or
  e-mail in it blocks it: it is not sent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from django.conf import settings

from rules.safety import gate_decide_rules, output_leaks, safety_score

SEVERITY = {"allow": 0, "review": 1, "block": 2}


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict on one text, with the scores and reasons behind it."""

    decision: str
    risk: float
    rule_risk: float
    llm_risk: float | None
    llm_status: str  # used | off | invalid_output | unavailable
    reasons: tuple[str, ...]
    categories: dict[str, float]
    pack_version: str

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reasons": list(self.reasons)}


def _llm_risk(text: str) -> tuple[float | None, str]:
    """Ask the configured model the policy question; return (P(yes), status)."""
    if not settings.LLM_ENABLED:
        return None, "off"
    from contracts.llm import llm_client
    from inference.chunking import text_chunks
    from inference.errors import LLMError, LLMInvalidOutput
    from inference.prompts import prompt_render
    from inference.tasks import document_budget

    client = llm_client()
    try:
        # A long document is checked chunk by chunk (up to a limit); its risk is the highest chunk's.
        budget = document_budget(client, "safety_check", 1)
        chunks = text_chunks(text, budget, client.count_tokens)[: settings.SAFETY_LLM_MAX_CHUNKS]
        risks = [client.yes_probability(prompt_render("safety_check", chunk.text).messages) for chunk in chunks]
    except LLMInvalidOutput:
        return None, "invalid_output"
    except LLMError:
        return None, "unavailable"
    return (max(risks) if risks else None), "used"


def gate_decide(*, text: str, is_ticket: bool, outgoing: bool = False, use_llm: bool = True) -> GateDecision:
    """Decide whether an automated response may go out for this text (input or outgoing generated text)."""
    review_threshold = settings.SAFETY_REVIEW_THRESHOLD
    block_threshold = settings.SAFETY_BLOCK_THRESHOLD
    assessment = safety_score(text)
    leaks = output_leaks(text) if outgoing else []
    decision: str
    decision, reasons = gate_decide_rules(
        assessment,
        review_threshold=review_threshold,
        block_threshold=block_threshold,
        is_ticket=is_ticket and not outgoing,
        leaks=leaks,
    )
    llm_risk, status = _llm_risk(text) if use_llm else (None, "off")
    risk = assessment.risk
    if llm_risk is not None:
        risk = max(risk, llm_risk)
        llm_decision = "allow"
        if llm_risk >= block_threshold:
            llm_decision = "review" if is_ticket and not outgoing else "block"
        elif llm_risk >= review_threshold:
            llm_decision = "review"
        if SEVERITY[llm_decision] > SEVERITY[decision]:
            decision = llm_decision
            reasons = (*reasons, f"llm policy check: P(unsafe)={llm_risk:.2f}")
    return GateDecision(
        decision=decision,
        risk=round(risk, 4),
        rule_risk=round(assessment.risk, 4),
        llm_risk=None if llm_risk is None else round(llm_risk, 4),
        llm_status=status,
        reasons=tuple(reasons),
        categories={k: round(v, 4) for k, v in assessment.categories.items()},
        pack_version=assessment.pack_version,
    )
