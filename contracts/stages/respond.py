"""The respond stage: the outgoing text (a reply, a risk summary), drafted once and gated once.

The model drafts it when the plan asks for a draft and the model answered; otherwise, or when the model's draft is
blocked by the outgoing gate, the desk's template answers. The desk then checks whether it is fit to send (a
ticket's reply: `contracts.hotline.replies`); each problem is a review reason, with its evidence in `check`.
What may happen to it (`contracts.gate.response_status`)
is decided from the input gate and the outgoing gate together: withheld when either blocks, pending review when
either holds it.
"""

from __future__ import annotations

from django.conf import settings

from contracts.gate import GateDecision, gate_decide, gate_review_reason, response_status
from contracts.stages.base import JobContext
from contracts.stages.llm import model_draft, model_policy_answer


class RespondStage:
    """Draft the suggested response (model, else the desk's template) and gate it."""

    name = "respond"

    def run(self, ctx: JobContext) -> None:
        desk = ctx.desk
        document_text, organisation = ctx.normalized_text().text, ctx.document.organisation
        template = desk.response_template(ctx.findings, source=document_text, organisation=organisation)
        wants_draft = ctx.plan.question("draft") is not None if ctx.plan is not None else settings.LLM_DRAFTS
        draft = model_draft(ctx) if ctx.llm_answered and wants_draft else None
        text, source = (draft, "llm") if draft is not None else (template, "template")
        output_gate = self._outgoing_gate(ctx, text, drafted=draft is not None)
        if output_gate.decision == "block" and draft is not None:
            text, source = template, "template"
            output_gate = self._outgoing_gate(ctx, text, drafted=False)
        status = response_status(ctx.decided_gate(), output_gate)
        if reason := gate_review_reason(output_gate, outgoing=True):
            ctx.review_reasons.append(reason)
        # Fit to send? (a ticket's reply: department, step, time, its own matter and place; empty for a summary)
        problems = desk.response_check(text, ctx.findings, source=document_text, organisation=organisation)
        if problems and status == "ready":
            status = "pending_review"
        ctx.review_reasons.extend(dict.fromkeys(problem["code"] for problem in problems))
        ctx.summary["suggested_response"] = None if status == "withheld" else text
        ctx.summary["response"] = {
            "status": status,
            "source": source,
            "output_gate": output_gate.as_dict(),
            "category": None,
            "level2": None,
            "department": None,
            "urgency": None,
            **desk.response_fields(ctx.findings),
            "check": problems,
        }

    @staticmethod
    def _outgoing_gate(ctx: JobContext, text: str, *, drafted: bool) -> GateDecision:
        """Gate an outgoing text; the model's own draft is also put to the model's policy question."""
        organisation = ctx.document.organisation.slug
        answer = model_policy_answer(text, organisation) if drafted else None
        source = f"{ctx.text}\n{ctx.normalized_text().text}"  # what the citizen sent, as written and normalized
        return gate_decide(text=text, kind="outgoing", organisation=organisation, answer=answer, source=source)
