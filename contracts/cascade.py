"""What the model is asked about one document: the cascade.

The rules answer first. Under `LLM_POLICY=cascade` the model is asked only what they leave in doubt:
- `gate`: the safety policy question, when the input gate's risk (lexicon or safety model) reaches
  LLM_CASCADE_GATE_RISK and the model's answer could still change the decision (it can only raise it: never for
  a block, nor for a ticket already held for review, the most a model can make of a ticket);
- `clauses`: the clause types whose rule evidence is weak (below LLM_CASCADE_CLAUSE_CONFIDENCE), negated, only
  referenced, or in conflict (one place stipulates what another negates), about the chunks that hold that
  evidence only; types the rules read plainly are not asked, and types they did not find are left to them;
- `ticket_category`: when the rules' (or the organisation's classifier's) category is below DOCGATE_MIN_CONFIDENCE;
- `cantonese_rewrite`: for Cantonese text (the dialect lexicon rewrites words, not grammar);
- `draft`: a reply draft or risk summary, only when drafts are enabled (LLM_DRAFTS).
A question the organisation's model has not earned its place for (`contracts.standing`: too few of its recent
answers valid, grounded and agreeing with the final result) is skipped, "rules-only by policy", except when it is
asked as a probe.
`always` asks every question that applies to the document; `off` asks none. Every job records what was asked and
why, and what was skipped and why (`provenance.llm.plan`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from contracts.gate import GateDecision, gate_policy
from rules.safety.decision import Kind

ALWAYS, CASCADE, OFF = "always", "cascade", "off"


@dataclass(frozen=True)
class Question:
    """One question for the model, with why it is asked (or skipped) and, for clauses, which types."""

    name: str
    reason: str
    labels: tuple[str, ...] = ()
    # Where the doubted rule evidence lies (original spans): the model reads only the chunks holding it. Empty:
    # the whole document.
    spans: tuple[tuple[int, int], ...] = ()
    probe: bool = False  # asked although the model is below its standing floor, to see whether it earned it back

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.name, "reason": self.reason}
        if self.labels:
            out["labels"] = list(self.labels)
        if self.spans:
            out["spans"] = [list(span) for span in self.spans]
        if self.probe:
            out["probe"] = True
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Question:
        """The question `as_dict` described (as stored in JSON: lists for tuples)."""
        spans = tuple((int(start), int(end)) for start, end in data.get("spans", ()))
        return cls(data["question"], data["reason"], tuple(data.get("labels", ())), spans, bool(data.get("probe")))


@dataclass(frozen=True)
class Standing:
    """The standing policy's word on a question the plan would ask: skip it (rules-only by policy) or ask it as a
    probe, and why."""

    ask: bool
    note: str


# The standing policy's check of a question by name: None to ask it as planned.
StandingCheck = Callable[[str], "Standing | None"]


@dataclass(frozen=True)
class CascadeSettings:
    """The knobs of the cascade (from settings in the pipeline; given directly in tests and benchmarks)."""

    policy: str
    clause_confidence: float
    gate_risk: float
    category_confidence: float
    drafts: bool
    clause_labels: tuple[str, ...]
    # The learned safety model's P(unsafe) from which the gate question is asked, per document kind (kinds not
    # named use `gate_risk`).
    gate_model_risk: Mapping[str, float] = field(default_factory=dict)


@dataclass
class LLMPlan:
    """The questions a job asks the model and the ones it skips, each with its reason."""

    policy: str
    asked: list[Question] = field(default_factory=list)
    skipped: list[Question] = field(default_factory=list)

    def question(self, name: str) -> Question | None:
        return next((q for q in self.asked if q.name == name), None)

    @property
    def asks_model(self) -> bool:
        return bool(self.asked)

    def standing_apply(self, standing: StandingCheck) -> None:
        """Skip the asked questions `standing` now says not to ask (probes excepted): the model may have fallen
        below its floor between the plan and its turn in the queue."""
        for question in list(self.asked):
            verdict = None if question.probe else standing(question.name)
            if verdict is not None and not verdict.ask:
                self.asked.remove(question)
                self.skipped.append(replace(question, reason=f"skipped: {verdict.note}"))

    def record(self) -> dict[str, Any]:
        return {
            "policy": self.policy,
            "asked": [q.as_dict() for q in self.asked],
            "skipped": [q.as_dict() for q in self.skipped],
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> LLMPlan:
        """The plan `record` described."""
        return cls(
            policy=record["policy"],
            asked=[Question.from_dict(q) for q in record["asked"]],
            skipped=[Question.from_dict(q) for q in record["skipped"]],
        )


def _gate_question(gate: GateDecision, knobs: CascadeSettings) -> Question:
    """Ask or skip the safety question: asked only when the rules' risk is in the band where the answer counts.

    Each layer is judged on its own scale: the lexicon's risk against LLM_CASCADE_GATE_RISK, the learned model's
    P(unsafe) against the floor of the document's kind (its scores for ordinary contracts run far higher than for
    tickets, and its contract thresholds are set to match)."""
    if knobs.policy == ALWAYS:
        return Question("gate", "policy always")
    if gate.decision == "block":
        return Question("gate", "skipped: the rules already block; the model can only raise a decision")
    if gate.decision == "review" and not gate_policy(cast(Kind, gate.kind)).llm_may_block:
        return Question("gate", f"skipped: a {gate.kind} held for review is the most the model could make of it")
    if gate.decision == "review":
        return Question("gate", "uncertain: held for review, and the model's answer could still block it")
    kind, lexicon, model = gate.kind, gate.rule_risk, gate.model_risk or 0.0
    model_floor = knobs.gate_model_risk.get(kind, knobs.gate_risk)
    if lexicon >= knobs.gate_risk:
        return Question("gate", f"uncertain: lexicon risk {lexicon:.2f} >= {knobs.gate_risk}")
    if model >= model_floor:
        return Question("gate", f"uncertain: safety model P(unsafe) {model:.2f} >= {model_floor} ({kind})")
    return Question(
        "gate", f"skipped: lexicon risk {lexicon:.2f} < {knobs.gate_risk}, P(unsafe) {model:.2f} < {model_floor}"
    )


def llm_plan(
    *,
    desk_questions: Sequence[tuple[Question, bool]],
    gate: GateDecision,
    cantonese: bool,
    knobs: CascadeSettings,
    standing: StandingCheck | None = None,
) -> LLMPlan:
    """Decide which questions this document asks the model, and why: the safety question, the questions of the
    document's desk (`desk_questions`, each with whether to ask it), a Cantonese rewrite and a draft. A question
    it would ask goes past `standing` (the organisation's model's standing) first, when there is one."""
    plan = LLMPlan(policy=knobs.policy)
    if knobs.policy == OFF:
        return plan

    def decide(question: Question, ask: bool) -> None:
        verdict = standing(question.name) if ask and standing is not None else None
        if verdict is not None and verdict.ask:
            question = replace(question, reason=f"{question.reason}; {verdict.note}", probe=True)
        elif verdict is not None:
            question = replace(question, reason=f"skipped: {verdict.note}")
            ask = False
        (plan.asked if ask else plan.skipped).append(question)

    gate_question = _gate_question(gate, knobs)
    decide(gate_question, not gate_question.reason.startswith("skipped"))
    for question, ask in desk_questions:
        decide(question, ask)
    if cantonese:
        decide(Question("cantonese_rewrite", "Cantonese text: the lexicon rewrites words, not grammar"), True)
    decide(
        Question("draft", "drafts enabled" if knobs.drafts else "skipped: drafts are off (LLM_DRAFTS)"), knobs.drafts
    )
    return plan
