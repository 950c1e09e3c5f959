"""What every stage shares: the typed job context and the `Stage` protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from contracts.cascade import LLMPlan
from contracts.desks import Desk, desk_for
from contracts.findings import Finding
from contracts.gate import GATE_REASONS, GateDecision, gate_review_reason
from contracts.models import Document, Job
from contracts.standing.tally import AnswerMark
from rules.normalize import NormalizedText


@dataclass
class LLMOutcome:
    """What the LLM stage did: whether the model was on, what each task cost, and the outage if there was one."""

    enabled: bool = False
    model: str | None = None
    engine: str | None = None
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    error: str | None = None
    breaker: dict[str, Any] | None = None

    @property
    def answered(self) -> bool:
        """The model was asked and answered (it was on, and no outage cut the stage short)."""
        return self.enabled and self.error is None

    def record(self) -> dict[str, Any]:
        """The provenance record stored with the result."""
        if not self.enabled:
            return {"enabled": False}
        out: dict[str, Any] = {"enabled": True, "model": self.model, "engine": self.engine, "tasks": self.tasks}
        if self.error is not None:
            out["error"] = self.error
        if self.breaker is not None:
            out["breaker"] = self.breaker
        return out


@dataclass
class JobContext:
    """What stages share: the document, the text they work on, each stage's typed output, and the findings.

    Stages write their outputs to the fields below (never to string keys another stage must know); `artifacts`
    holds only extra, free-form artifacts of added stages. The runner turns the context into the stored job
    artifacts and result.
    """

    job: Job
    document: Document
    attempt: int
    text: str
    stats: dict[str, Any] | None = None  # extract
    normalized: NormalizedText | None = None  # normalize
    findings: list[Finding] = field(default_factory=list)  # rules, llm; merged by merge
    rule_packs: dict[str, str] = field(default_factory=dict)  # rules: pack name -> version
    plan: LLMPlan | None = None  # plan: what the model is asked, and why
    # Whether this run asks the model its planned questions: not in a job's first (rules) run, which publishes a
    # provisional result; yes in its second (llm) run and in a single local analysis.
    ask_model: bool = True
    # Whether an outage may make this run wait for the model (`LLMWait`) rather than finish without it.
    may_wait_for_llm: bool = False
    llm: LLMOutcome | None = None  # llm
    mandarin_rewrite: str | None = None  # llm, for Cantonese input
    answer_marks: list[AnswerMark] = field(default_factory=list)  # llm; judged by merge, stored with the result
    gate: GateDecision | None = None  # gate (raised by the llm stage when the model answers the policy question)
    summary: dict[str, Any] = field(default_factory=dict)  # merge: gate, conflicts, response, routing
    review_reasons: list[str] = field(default_factory=list)
    degraded: bool = False
    artifacts: dict[str, Any] = field(default_factory=dict)

    def normalized_text(self) -> NormalizedText:
        """The normalize stage's output; asking for it earlier is a bug in the stage order."""
        if self.normalized is None:
            raise RuntimeError("the normalize stage has not run")
        return self.normalized

    @property
    def desk(self) -> Desk:
        """The desk of the document's kind: what its rules, cascade questions, merge and response are."""
        return desk_for(self.document.kind)

    def gate_set(self, decision: GateDecision) -> None:
        """Record the input gate's decision, its review reason taking the place of an earlier one."""
        self.gate = decision
        reasons, reason = self.review_reasons, gate_review_reason(decision)
        first = next((n for n, r in enumerate(reasons) if r in GATE_REASONS.values()), len(reasons))
        later = [r for r in reasons[first:] if r not in GATE_REASONS.values()]
        reasons[:] = [*reasons[:first], *([reason] if reason else []), *later]

    def decided_gate(self) -> GateDecision:
        """The gate stage's decision; asking for it earlier is a bug in the stage order."""
        if self.gate is None:
            raise RuntimeError("the gate stage has not run")
        return self.gate

    def job_artifacts(self) -> dict[str, Any]:
        """Everything stored on the job: the stages' outputs, then any extra artifacts."""
        out: dict[str, Any] = {}
        if self.stats is not None:
            out["stats"] = self.stats
        if self.normalized is not None:
            out["normalize"] = {"report": self.normalized.report.as_dict(), "text": self.normalized.text}
        if self.mandarin_rewrite is not None:
            out["mandarin_rewrite"] = self.mandarin_rewrite
        if self.gate is not None:
            out["gate"] = self.gate.as_dict()
        return {**out, **self.artifacts}

    def provenance(self) -> dict[str, Any]:
        """Where the result came from: rule pack versions and what the model did."""
        out: dict[str, Any] = {}
        if self.rule_packs:
            out["rule_packs"] = self.rule_packs
        if self.llm is not None:
            out["llm"] = self.llm.record()
            if self.plan is not None:
                out["llm"]["plan"] = self.plan.record()
        return out

    @property
    def llm_answered(self) -> bool:
        """The LLM stage ran and the model answered."""
        return self.llm is not None and self.llm.answered


class LLMWait(Exception):
    """The model is unavailable and this job may still wait for it: the runner puts it back, provisional."""


class Stage(Protocol):
    """One step of the pipeline: a name and a run method over the shared context."""

    name: str

    def run(self, ctx: JobContext) -> None: ...
