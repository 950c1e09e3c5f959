"""The safety gate: lexicon, learned classifier and the LLM's yes/no policy answer, decided into allow/review/block.

Decision (documented for operators):
- The lexicon scores the text (`rules.safety`) and the learned classifier gives a calibrated P(unsafe) (the
  organisation's own model when it trained one with `train_safety_model --organisation`, else the shipped one).
  `rules.safety.gate_decide_text` combines them per document kind: the lexicon at the generic thresholds,
  the model at the kind's thresholds (SAFETY_<KIND>_REVIEW_THRESHOLD / _BLOCK_THRESHOLD); a ticket is
  blocked only when both the lexicon (a harmful request or threat) and the model agree.
- A safety model that cannot be loaded never lets text through unseen: the decision is at least `review`,
  and /readyz reports the model unhealthy.
- When the LLM is on, the LLM stage asks it one yes/no policy question (the gate itself never calls the model: it
  weighs the answer it is given); P(yes) from the first token's log-probabilities is its risk. Risk ≥ the block
  threshold blocks a contract and sends a ticket to review; ≥ the review threshold sends either to review. The
  LLM can only raise the decision, never lower it, so a document cannot talk its way past the gate.
- A model that cannot answer yes/no (a base model) or a server that is down leaves the decision alone and is
  recorded; an outage already routes the job to review through the LLM stage.
- Outgoing generated text (reply draft, summary) is gated the same way, and any phone, resident ID, bank card or
  e-mail in it blocks it: it is not sent. What may happen to the suggested response follows from both decisions
  (`response_status`), and each decision's review reason from `gate_review_reason`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from typing import Any, cast

from django.conf import settings

from contracts.learned.store import model_current_dir, model_publish
from contracts.learned.thresholds import safety_thresholds_current
from rules.safety import output_leaks, output_links, safety_score
from rules.safety.contract_reading import legal_function_masked
from rules.safety.decision import SEVERITY, GatePolicy, Kind, gate_decide_text, kind_policy
from rules.safety.model import SafetyModel, SafetyModelError, load_safety_model

logger = logging.getLogger(__name__)
MODEL_NAME = "safety"
# The review reason of each input decision that holds the automated response.
GATE_REASONS = {"block": "gate_block", "review": "gate_review"}


@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict on one text, with the scores and reasons behind it."""

    decision: str
    risk: float
    rule_risk: float
    model_risk: float | None
    model_category: str | None
    model_version: str | None
    kind: str
    llm_risk: float | None
    llm_status: str  # used | off | invalid_output | unavailable
    reasons: tuple[str, ...]
    categories: dict[str, float]
    pack_version: str

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reasons": list(self.reasons)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateDecision:
        """The decision `as_dict` described (as stored in JSON: a list for the reasons)."""
        return cls(**{**data, "reasons": tuple(data["reasons"]), "categories": dict(data["categories"])})


@dataclass(frozen=True)
class PolicyAnswer:
    """The model's answer to the yes/no policy question: P(yes) and how asking went."""

    risk: float | None
    status: str  # used | off | invalid_output | unavailable


def safety_model_publish(organisation_slug: str, model: SafetyModel) -> str:
    """Save an organisation's safety model as a new version and make it current; return its directory."""
    return str(model_publish(organisation_slug, MODEL_NAME, model.version, model.save))


@lru_cache(maxsize=16)
def _model_at(directory: str) -> SafetyModel:
    return load_safety_model(directory)


def safety_model_for(organisation_slug: str | None) -> SafetyModel:
    """The organisation's current safety model, else the shipped one; raise SafetyModelError when unusable."""
    directory = model_current_dir(organisation_slug, MODEL_NAME) if organisation_slug else None
    if directory is not None:
        try:
            return _model_at(str(directory))
        except SafetyModelError:
            logger.warning("safety model at %s cannot be used; using the shipped one", directory, exc_info=True)
    return load_safety_model()


def gate_policy(kind: Kind, organisation: str | None = None) -> GatePolicy:
    """The model thresholds of one document kind: the organisation's recalibrated ones where its reviewers' verdicts
    moved them (`contracts.learned.thresholds`), else the settings'."""
    review, block = safety_thresholds_current(organisation).get(kind, settings.SAFETY_POLICIES[kind])
    return kind_policy(kind, review, block)


def gate_scale(kind: str, organisation: str | None = None) -> dict[str, dict[str, Any]]:
    """What each layer's risk (0 to 1) is read against for a document kind, for people reading a decision: the
    lexicon and the LLM at the generic thresholds, the learned model at the kind's own; whether the model blocks
    only with the lexicon's agreement, and whether the LLM may block at all."""
    policy = gate_policy(cast(Kind, kind), organisation) if kind in settings.SAFETY_POLICIES else None
    generic = {"review": settings.SAFETY_REVIEW_THRESHOLD, "block": settings.SAFETY_BLOCK_THRESHOLD}
    model = {"review": policy.review, "block": policy.block} if policy is not None else dict(generic)
    return {
        "rules": {**generic, "blocks_alone": not (policy is not None and policy.require_agreement)},
        "model": {**model, "blocks_alone": not (policy is not None and policy.require_agreement)},
        "llm": {**generic, "blocks_alone": policy is None or policy.llm_may_block},
    }


def gate_decide(
    *,
    text: str,
    kind: Kind,
    organisation: str | None = None,
    answer: PolicyAnswer | None = None,
    source: str = "",
) -> GateDecision:
    """Decide whether an automated response may go out for this text (input of `kind`, or "outgoing" text),
    from the lexicon, the learned model and, when given, the model's `answer` to the policy question. An outgoing
    text is also blocked for personal identifiers, and for links or messenger handles its `source` (the input it
    answers) does not hold."""
    review_threshold = settings.SAFETY_REVIEW_THRESHOLD
    block_threshold = settings.SAFETY_BLOCK_THRESHOLD
    outgoing = kind == "outgoing"
    policy = gate_policy(kind, organisation)
    judged = legal_function_masked(text) if policy.legal_function else text  # same length: spans keep meaning
    assessment = safety_score(judged)
    try:
        model: SafetyModel | None = safety_model_for(organisation)
    except SafetyModelError:
        logger.exception("no usable safety model: the gate sends this text to review")
        model = None
    prediction = model.predict([judged], [assessment])[0] if model is not None else None
    decision: str
    decision, risk, reasons = gate_decide_text(
        assessment,
        prediction,
        kind=kind,
        policy=policy,
        review_threshold=review_threshold,
        block_threshold=block_threshold,
        leaks=[*output_leaks(text), *output_links(text, source=source)] if outgoing else (),
    )
    if model is None and decision == "allow":
        decision = "review"
        reasons = (*reasons, "safety model unavailable: a person decides")
    rules_only = GateDecision(
        decision=decision,
        risk=round(risk, 4),
        rule_risk=round(assessment.risk, 4),
        model_risk=prediction.p_unsafe if prediction else None,
        model_category=prediction.category if prediction and prediction.p_unsafe >= 0.5 else None,
        model_version=model.version if model is not None else None,
        kind=kind,
        llm_risk=None,
        llm_status="off",
        reasons=tuple(reasons),
        categories={k: round(v, 4) for k, v in assessment.categories.items()},
        pack_version=assessment.pack_version,
    )
    return rules_only if answer is None else gate_llm_raise(rules_only, answer)


def gate_llm_raise(decision: GateDecision, answer: PolicyAnswer) -> GateDecision:
    """Raise `decision` by the model's answer to the policy question (never lower it); the answer's status is
    recorded on the returned decision. Where the kind's policy does not let the LLM block (tickets, contracts), its
    answer raises to review at most."""
    if answer.risk is None:
        return replace(decision, llm_status=answer.status)
    llm_risk = answer.risk
    block_threshold, review_threshold = settings.SAFETY_BLOCK_THRESHOLD, settings.SAFETY_REVIEW_THRESHOLD
    llm_decision = "allow"
    if llm_risk >= block_threshold:
        llm_decision = "block" if gate_policy(cast(Kind, decision.kind)).llm_may_block else "review"
    elif llm_risk >= review_threshold:
        llm_decision = "review"
    raised, reasons = decision.decision, decision.reasons
    if SEVERITY[llm_decision] > SEVERITY[raised]:
        raised, reasons = llm_decision, (*reasons, f"llm policy check: P(unsafe)={llm_risk:.2f}")
    return replace(
        decision,
        decision=raised,
        risk=round(max(decision.risk, llm_risk), 4),
        llm_risk=round(llm_risk, 4),
        llm_status=answer.status,
        reasons=reasons,
    )


def gate_review_reason(decision: GateDecision, *, outgoing: bool = False) -> str | None:
    """The review reason a decision gives a job: gate_block / gate_review on the input, output_gate_review on an
    outgoing text (a blocked outgoing text is replaced or withheld, not reviewed for itself)."""
    if outgoing:
        return "output_gate_review" if decision.decision == "review" else None
    return GATE_REASONS.get(decision.decision)


def response_status(input_gate: GateDecision, output_gate: GateDecision) -> str:
    """What may happen to the suggested response: `withheld` when either gate blocks, `pending_review` when either
    holds it for review, else `ready`."""
    decisions = {input_gate.decision, output_gate.decision}
    if "block" in decisions:
        return "withheld"
    return "pending_review" if "review" in decisions else "ready"
