"""Pure gate decisions: rules-only allow/review/block with reasons, the rules+LLM combination, output leaks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from rules.entities.model import Entity
from rules.pii import pii_spans
from rules.safety.scorer import SafetyAssessment
from rules.safety_thresholds import DEFAULT_BLOCK_THRESHOLD, DEFAULT_KIND_THRESHOLDS, DEFAULT_REVIEW_THRESHOLD

if TYPE_CHECKING:
    from rules.safety.model import SafetyPrediction

Decision = Literal["allow", "review", "block"]
# What the gate judges: a citizen ticket, a contract, an outgoing generated text, or any other text (evaluation
# rows that are neither, e.g. requests to a model).
Kind = Literal["ticket", "contract", "outgoing", "text"]
KINDS: tuple[Kind, ...] = ("ticket", "contract", "outgoing", "text")
SEVERITY = {"allow": 0, "review": 1, "block": 2}

# Identifiers that must never leave in generated text. Names and addresses are not here: a reply draft
# addresses the citizen ("张先生您好") and names the department's address by design.
LEAK_LABELS = frozenset({"PHONE", "ID_NUMBER", "BANK_CARD", "EMAIL"})
# Categories in which a ticket may be blocked: a harmful request or a threat against someone. Abuse, prejudice,
# self-harm and personal data in a citizen's own message are routed to a person, never blocked.
TICKET_BLOCKABLE = frozenset({"违法犯罪", "侵犯权益", "violence_threat", "sexual", "prompt_injection"})
# Categories whose words carry their intent in a ticket too: a threat, an insult, self-harm, an injection.
TICKET_INTENT_CATEGORIES = frozenset({"violence_threat", "self_harm", "abuse", "prompt_injection"})
# A ticket hit only blocks when its context shows the writer asks for or does the harm, not when it is mentioned.
_REQUEST_CONTEXTS = frozenset({"intent", "stealth", "solicit", "coercion"})


def output_leaks(text: str, *, labels: Iterable[str] = LEAK_LABELS) -> list[Entity]:
    """Personal identifiers (phone, resident ID with checksum, bank card, e-mail) in an outgoing generated text."""
    wanted = frozenset(labels)
    return [entity for entity in pii_spans(text) if entity.label in wanted]


# A web address or a messenger handle in an outgoing text (an injected draft's way to send the citizen elsewhere).
_LINK = re.compile(
    r"(?i)(?:https?://|www\.)[^\s，。；、！？）)\]】>\"']+"
    r"|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|cn|net|org|top|xyz|info|io|cc|me|vip|shop|site)\b[^\s，。；、]*"
)
_HANDLE = re.compile(r"(?i)(?:QQ|微信|VX|WX|WeChat|Telegram|TG|Line)(?:号码|号|群)?\s*[:：]?\s*[A-Za-z0-9_-]{5,}")


def output_links(text: str, *, source: str = "") -> list[Entity]:
    """Links and messenger handles in an outgoing text that its `source` (what the citizen sent) does not hold:
    a reply may repeat what it answers, never send the reader somewhere new."""
    found = [(m, "LINK") for m in _LINK.finditer(text)] + [(m, "CONTACT") for m in _HANDLE.finditer(text)]
    return [
        Entity(label, m.start(), m.end(), m.group(), None, False, f"safety.outgoing.{label.lower()}")
        for m, label in found
        if m.group().lower() not in source.lower()
    ]


def _blocking_for_ticket(assessment: SafetyAssessment, category: str) -> bool:
    """Whether a ticket's category score comes from a request or threat rather than a mention."""
    if category not in TICKET_BLOCKABLE:
        return False
    if category in ("violence_threat", "prompt_injection"):
        # A direct threat ("杀了你") and an injection both carry their intent in the words themselves.
        return any(hit.category == category and not hit.context.startswith("mitigated") for hit in assessment.hits)
    return _in_request_context(assessment, category)


def _in_request_context(assessment: SafetyAssessment, category: str) -> bool:
    """Whether one of the category's hits was raised by a request, stealth, solicitation or coercion cue."""
    return any(hit.category == category and hit.context in _REQUEST_CONTEXTS for hit in assessment.hits)


def _counts_for_ticket(assessment: SafetyAssessment, category: str) -> bool:
    """Whether a category's score speaks against a ticket: its words carry intent, or a request/threat context does.

    Citizens name crimes, fraud, pollution and abuse of power because they report them; a mention of a harm, or a
    group named beside a complaint's hard words, is the substance of a complaint, not a sign of one.
    """
    return category in TICKET_INTENT_CATEGORIES or _in_request_context(assessment, category)


def _ticket_decision(
    assessment: SafetyAssessment, review_threshold: float, block_threshold: float
) -> tuple[Decision, tuple[str, ...]]:
    """A ticket's rules-only decision: only categories that count for a ticket (`_counts_for_ticket`) flag it, and
    it is blocked only when a TICKET_BLOCKABLE category reaches the block threshold through a request or threat
    and the text is not addressed to an authority as a complaint; a complaint, however angry, is routed."""
    counted = {c: score for c, score in assessment.categories.items() if _counts_for_ticket(assessment, c)}
    reasons = tuple(reason for reason in _reasons(assessment, review_threshold) if reason.split(" ")[0] in counted)
    risk = max(counted.values(), default=0.0)
    if risk >= block_threshold:
        blocking = [c for c, score in counted.items() if score >= block_threshold]
        # A text that asks an authority to act (举报, 投诉, 请…查处) is a complaint as a whole, whatever one of
        # its sentences looks like: it is routed to a person, never refused.
        if "complaint" not in assessment.cues and any(_blocking_for_ticket(assessment, c) for c in blocking):
            return "block", reasons
        return "review", (*reasons, "ticket: capped at review (a complaint is routed, not blocked)")
    if risk >= review_threshold:
        return "review", reasons
    return "allow", ()


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
    - Any personal identifier in `leaks` (from `output_leaks` on an outgoing text), or a link or messenger handle
      the input did not hold (`output_links`) → block: it is not sent.
    - A ticket (citizen input, `is_ticket`): see `_ticket_decision`.
    """
    if not 0.0 <= review_threshold <= block_threshold <= 1.0:
        raise ValueError("thresholds must satisfy 0 <= review_threshold <= block_threshold <= 1")
    leak_reasons = [
        f"{'pii_leak' if entity.is_pii else 'foreign_link'}: {entity.label} at {entity.start}-{entity.end}"
        for entity in leaks
    ]
    reasons = leak_reasons + _reasons(assessment, review_threshold)
    if leak_reasons:
        return "block", tuple(reasons)
    if is_ticket:
        return _ticket_decision(assessment, review_threshold, block_threshold)
    if assessment.risk >= block_threshold:
        return "block", tuple(reasons)
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


@dataclass(frozen=True)
class GatePolicy:
    """The learned model's thresholds for one document kind.

    `review`/`block`: P(unsafe) at or above which the model asks for review / a block. With `require_agreement`
    (tickets) the model never blocks alone and the lexicon never blocks alone either: a block needs the lexicon's
    request/threat evidence at block level *and* P(unsafe) ≥ `block`. `categories` limits which of the model's
    categories may flag at all.
    """

    review: float
    block: float
    require_agreement: bool = False
    # The model categories whose P(unsafe) counts for this kind (None: all). For tickets only harmful requests,
    # threats, self-harm and privacy probing: the model learned prejudice and abuse from social-media comments,
    # a register an angry formal complaint resembles; explicit slurs and insults are the lexicon's to find.
    categories: frozenset[str] | None = None
    # The input is a citizen's ticket: the lexicon reads it as a complaint, in which harm is described, not asked
    # for (`gate_decide_rules(is_ticket=True)`).
    complaint: bool = False
    # The input is a contract: what it prohibits, penalises, defines or keeps confidential is not judged as harm
    # (`rules.safety.contract_reading`).
    legal_function: bool = False
    # Whether the LLM's policy answer alone may block; else it raises to review at most.
    llm_may_block: bool = True

    def __post_init__(self) -> None:
        if not (0.0 <= self.review <= 1.0 and 0.0 <= self.block <= 1.0):
            raise ValueError("gate policy thresholds must lie in [0, 1]")
        if not self.require_agreement and self.review > self.block:
            raise ValueError("gate policy: review threshold above block threshold")

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form (categories sorted)."""
        return {
            "review": self.review,
            "block": self.block,
            "require_agreement": self.require_agreement,
            "categories": None if self.categories is None else sorted(self.categories),
        }


TICKET_MODEL_CATEGORIES = TICKET_BLOCKABLE | {"self_harm", "pii_leak"}


# What each kind's input is, beyond its thresholds: a ticket is a citizen's complaint, blocked only when the lexicon
# and the model agree, and judged by the model's request, threat, self-harm and privacy categories only; a contract
# is read for its clauses' legal function. For neither does the LLM's answer alone block.
KIND_TRAITS: Mapping[str, Mapping[str, Any]] = {
    "ticket": {
        "require_agreement": True, "categories": TICKET_MODEL_CATEGORIES, "complaint": True, "llm_may_block": False,
    },
    "contract": {"legal_function": True, "llm_may_block": False},
}  # fmt: skip


def kind_policy(kind: Kind, review: float, block: float) -> GatePolicy:
    """The policy of a document kind at the given model thresholds (tickets: agreement, restricted categories)."""
    return GatePolicy(review, block, **KIND_TRAITS.get(kind, {}))


DEFAULT_POLICIES: Mapping[Kind, GatePolicy] = {
    kind: kind_policy(kind, *DEFAULT_KIND_THRESHOLDS[kind]) for kind in KINDS
}


def gate_decide_text(
    assessment: SafetyAssessment,
    prediction: SafetyPrediction | None,
    *,
    kind: Kind,
    policy: GatePolicy,
    review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
    block_threshold: float = DEFAULT_BLOCK_THRESHOLD,
    leaks: Iterable[Entity] = (),
) -> tuple[Decision, float, tuple[str, ...]]:
    """One decision from the lexicon, the learned model and the document kind: (decision, risk, reasons).

    - The lexicon is judged at the generic thresholds (`gate_decide_rules`; a ticket is capped at review unless
      its evidence is a harmful request or threat; any identifier leaking from an outgoing text blocks it).
    - The model's P(unsafe) is judged at the kind's `policy` (and ignored when its category does not count there).
    - The more severe of the two wins, except that under `require_agreement` (tickets) a block needs both: the
      lexicon's block and P(unsafe) ≥ policy.block; otherwise the ticket is reviewed. A citizen describing harm
      done to them is a complaint: it may be looked at, never silently refused.
    - Without a model (None) the lexicon decides alone. Risk is the higher of lexicon risk and P(unsafe).
    """
    leaks = list(leaks)
    decision, reasons = gate_decide_rules(
        assessment,
        review_threshold=review_threshold,
        block_threshold=block_threshold,
        is_ticket=policy.complaint,
        leaks=leaks,
    )
    reasons_out = [f"lexicon: {reason}" for reason in reasons]
    if prediction is None:
        return decision, assessment.risk, tuple(reasons_out)
    p = prediction.p_unsafe
    if policy.categories is not None and prediction.category not in policy.categories:
        if p >= policy.review:
            reasons_out.append(f"model: P(unsafe)={p:.2f} as {prediction.category}, which does not count for a {kind}")
        p = 0.0
    model_decision: Decision = "allow"
    if p >= policy.block and not policy.require_agreement:
        model_decision = "block"
    elif p >= policy.review:
        model_decision = "review"
    if model_decision != "allow":
        reasons_out.append(f"model: P(unsafe)={p:.2f} ≥ {kind} {model_decision} threshold ({prediction.category})")
    if policy.require_agreement and decision == "block" and not leaks and p < policy.block:
        decision = "review"
        reasons_out.append(f"model: P(unsafe)={p:.2f} < {policy.block:.2f}: a {kind} is blocked only when both agree")
    if SEVERITY[model_decision] > SEVERITY[decision]:
        decision = model_decision
    return decision, round(max(assessment.risk, p), 4), tuple(reasons_out)
