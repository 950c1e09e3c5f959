"""The last pipeline stages: the safety gate on the input, then merge, response and routing."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings

from contracts.gate import gate_decide
from contracts.merge import (
    contract_summary_template,
    findings_merge,
    findings_summary,
    qa_sampled,
    ticket_reply_template,
)

if TYPE_CHECKING:
    from contracts.pipeline import JobContext

logger = logging.getLogger(__name__)


class GateStage:
    """Decide from the input whether an automated response may go out: allow, review or block."""

    name = "gate"

    def run(self, ctx: JobContext) -> None:
        assert ctx.normalized is not None, "the normalize stage runs first"
        decision = gate_decide(
            text=ctx.normalized.text,
            kind="ticket" if ctx.document.kind == "ticket" else "contract",
            organisation=ctx.document.organisation.slug,
            use_llm=not ctx.degraded,
        )
        ctx.artifacts["gate"] = decision.as_dict()
        if decision.decision == "block":
            ctx.review_reasons.append("gate_block")
        elif decision.decision == "review":
            ctx.review_reasons.append("gate_review")


class MergeStage:
    """One result: merged findings with provenance, conflicts, a gated suggested response, routing reasons."""

    name = "merge"

    def run(self, ctx: JobContext) -> None:
        llm = ctx.provenance.get("llm", {})
        llm_answered = bool(llm.get("enabled")) and "error" not in llm
        ctx.findings, conflicts = findings_merge(ctx.findings, llm_answered=llm_answered)
        if conflicts:
            ctx.review_reasons.append("conflict")
        confidence = self._confidence(ctx)
        if ctx.document.kind == "ticket" and confidence.get("category", 0.0) < settings.DOCGATE_MIN_CONFIDENCE:
            ctx.review_reasons.append("low_confidence")
        if qa_sampled(ctx.job.pk):
            ctx.review_reasons.append("qa_sample")
        text, response = self._response(ctx, llm_answered)
        ctx.summary.update(
            {
                "gate": ctx.artifacts["gate"],
                "conflicts": conflicts,
                "confidence": confidence,
                "suggested_response": text,
                "response": response,
                "routing": {
                    "needs_review": bool(ctx.review_reasons),
                    "reasons": list(dict.fromkeys(ctx.review_reasons)),
                },
            }
        )

    def _category(self, ctx: JobContext) -> dict[str, Any] | None:
        return next((f for f in ctx.findings if f["kind"] == "ticket_category" and f["source"] == "rule"), None)

    def _confidence(self, ctx: JobContext) -> dict[str, float]:
        if ctx.document.kind != "ticket":
            clauses = [f["confidence"] for f in ctx.findings if f["kind"] == "clause" and "confidence" in f]
            return {"clauses": round(min(clauses), 4)} if clauses else {}
        category = self._category(ctx)
        if category is None or not category.get("label"):
            return {"category": 0.0}
        value = float(category.get("confidence") or 0.0)
        if category.get("provenance") == "both":
            value = 1 - (1 - value) * 0.5  # two independent layers agreeing halve the doubt
        return {"category": round(value, 4)}

    def _response(self, ctx: JobContext, llm_answered: bool) -> tuple[str | None, dict[str, Any]]:
        """Draft (model, else template), gate the draft, and withhold it when the input gate blocked."""
        is_ticket = ctx.document.kind == "ticket"
        category = self._category(ctx) if is_ticket else None
        urgency = next((f["label"] for f in ctx.findings if f["kind"] == "urgency" and f["source"] == "rule"), None)
        template = (
            ticket_reply_template(category, urgency == "urgent")
            if is_ticket
            else contract_summary_template(ctx.findings)
        )
        draft, source = (self._llm_draft(ctx), "llm") if llm_answered and settings.LLM_DRAFTS else (None, "template")
        if draft is None:
            draft, source = template, "template"
        organisation = ctx.document.organisation.slug
        output_gate = gate_decide(text=draft, kind="outgoing", organisation=organisation, use_llm=source == "llm")
        if output_gate.decision == "block" and source == "llm":
            draft, source = template, "template"
            output_gate = gate_decide(text=draft, kind="outgoing", organisation=organisation, use_llm=False)
        input_decision = ctx.artifacts["gate"]["decision"]
        if output_gate.decision == "block" or input_decision == "block":
            status = "withheld"
        elif output_gate.decision == "review" or input_decision == "review":
            status = "pending_review"
        else:
            status = "ready"
        if output_gate.decision == "review":
            ctx.review_reasons.append("output_gate_review")
        response = {
            "status": status,
            "source": source,
            "output_gate": output_gate.as_dict(),
            "category": category.get("label") if category else None,
            "level2": category.get("level2") if category else None,
            "department": category.get("department") if category else None,
            "urgency": urgency,
        }
        return (None if status == "withheld" else draft), response

    def _llm_draft(self, ctx: JobContext) -> str | None:
        from contracts.llm import llm_client
        from inference.errors import LLMError
        from inference.tasks import response_draft

        assert ctx.normalized is not None
        kind: Literal["ticket", "contract"] = "ticket" if ctx.document.kind == "ticket" else "contract"
        try:
            result = response_draft(llm_client(), kind, ctx.normalized.text, findings_summary(ctx.findings))
        except LLMError as exc:
            logger.info("job %s: no model draft (%s); using the template", ctx.job.pk, exc)
            return None
        ctx.provenance.setdefault("llm", {}).setdefault("tasks", {})["response_draft"] = {
            "prompt_version": result.prompt_version,
            "calls": result.calls,
            "llm_latency_ms": result.llm_latency_ms,
            "invalid_outputs": result.invalid_outputs,
        }
        draft = (result.output_text or "").strip()
        return draft or None
