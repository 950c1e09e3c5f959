"""The gate stage: may an automated response go out for this input? (`contracts.gate` decides.)"""

from __future__ import annotations

from contracts.gate import gate_decide
from contracts.stages.base import JobContext


class GateStage:
    """Decide from the input, by the rules (lexicon and safety model), whether an automated response may go out:
    allow, review or block. The model's policy answer, when the plan asks it, can only raise this (LLM stage)."""

    name = "gate"

    def run(self, ctx: JobContext) -> None:
        organisation = ctx.document.organisation.slug
        ctx.gate_set(gate_decide(text=ctx.normalized_text().text, kind=ctx.desk.kind, organisation=organisation))
