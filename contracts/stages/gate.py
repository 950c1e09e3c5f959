"""The gate stage: may an automated response go out for this input? (`contracts.gate` decides.)"""

from __future__ import annotations

from contracts.gate import gate_decide
from contracts.stages.base import JobContext


class GateStage:
    """Decide from the input whether an automated response may go out: allow, review or block."""

    name = "gate"

    def run(self, ctx: JobContext) -> None:
        decision = gate_decide(
            text=ctx.normalized_text().text,
            kind="ticket" if ctx.document.kind == "ticket" else "contract",
            organisation=ctx.document.organisation.slug,
            # Not when the model is down, nor when the LLM stage ran with the model off (`analyze --llm off`).
            use_llm=not ctx.degraded and (ctx.llm is None or ctx.llm.enabled),
        )
        ctx.gate = decision
        if decision.decision == "block":
            ctx.review_reasons.append("gate_block")
        elif decision.decision == "review":
            ctx.review_reasons.append("gate_review")
