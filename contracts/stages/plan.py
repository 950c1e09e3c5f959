"""The plan stage: which questions the model is asked about this document (`contracts.cascade`)."""

from __future__ import annotations

from django.conf import settings

from contracts.cascade import OFF, CascadeSettings, llm_plan
from contracts.stages.base import JobContext
from contracts.standing.policy import standing_check
from rules.clauses import load_pack


def cascade_settings() -> CascadeSettings:
    """The cascade's knobs from settings (the policy is `off` whenever the model is)."""
    return CascadeSettings(
        policy=settings.LLM_POLICY if settings.LLM_ENABLED else OFF,
        clause_confidence=settings.LLM_CASCADE_CLAUSE_CONFIDENCE,
        gate_risk=settings.LLM_CASCADE_GATE_RISK,
        gate_model_risk=settings.LLM_CASCADE_GATE_MODEL_RISK,
        category_confidence=settings.DOCGATE_MIN_CONFIDENCE,
        drafts=settings.LLM_DRAFTS,
        clause_labels=tuple(load_pack().clauses),
    )


class PlanStage:
    """Decide, from the rules' findings and the input gate, what to ask the model."""

    name = "plan"

    def __init__(self, knobs: CascadeSettings | None = None) -> None:
        self.knobs = knobs

    def run(self, ctx: JobContext) -> None:
        knobs = self.knobs or cascade_settings()
        organisation_id = ctx.job.organisation_id
        # A local analysis (no stored organisation) has no standing: it asks what the cascade plans.
        standing = standing_check(organisation_id, settings.LLM_MODEL) if organisation_id is not None else None
        ctx.plan = llm_plan(
            desk_questions=ctx.desk.plan_questions(ctx.findings, knobs) if knobs.policy != OFF else [],
            gate=ctx.decided_gate(),
            cantonese=ctx.normalized_text().report.is_cantonese,
            knobs=knobs,
            standing=standing,
        )
