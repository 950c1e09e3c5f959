"""The gate stage: may an automated response go out for this input? (`contracts.gate` decides.)"""

from __future__ import annotations

from contracts.gate import GateDecision, gate_decide
from contracts.stages.base import JobContext


def gate_reasons(ctx: JobContext, decision: GateDecision) -> None:
    """Record the gate's decision on the context, with its review reason (replacing an earlier one)."""
    ctx.gate = decision
    ctx.review_reasons[:] = [r for r in ctx.review_reasons if r not in ("gate_block", "gate_review")]
    if decision.decision == "block":
        ctx.review_reasons.append("gate_block")
    elif decision.decision == "review":
        ctx.review_reasons.append("gate_review")


class GateStage:
    """Decide from the input, by the rules (lexicon and safety model), whether an automated response may go out:
    allow, review or block. The model's policy answer, when the plan asks it, can only raise this (LLM stage)."""

    name = "gate"

    def run(self, ctx: JobContext) -> None:
        decision = gate_decide(
            text=ctx.normalized_text().text,
            kind="ticket" if ctx.document.kind == "ticket" else "contract",
            organisation=ctx.document.organisation.slug,
            use_llm=False,
        )
        gate_reasons(ctx, decision)
