"""The LLM stage: asks the model what the plan lists, adds grounded findings; on an outage the job waits for the
model (`LLMWait`) while it may, then degrades to rules-only. The one module of the pipeline that calls the model:
the respond stage asks it for drafts through `model_draft` and `model_policy_answer` here."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from contracts.cascade import OFF
from contracts.desks import ModelAnswer
from contracts.gate import PolicyAnswer, gate_llm_raise
from contracts.llm import llm_breaker_snapshot, llm_client_for
from contracts.stages.base import JobContext, LLMOutcome, LLMWait
from contracts.standing.policy import standing_recheck
from contracts.standing.tally import AnswerMark, desk_answer_mark, gate_answer_mark
from inference.answers import LLMTaskResult
from inference.client import LLMClient
from inference.errors import LLMError, LLMInvalidOutput, LLMRequestError, LLMUnavailable
from inference.questions import cantonese_rewrite, response_draft, safety_risk, shared_budget

logger = logging.getLogger(__name__)
# The plan's questions the pipeline itself asks; the others are the desk's.
SHARED_QUESTIONS = ("gate", "cantonese_rewrite", "draft")


def _task_provenance(result: LLMTaskResult) -> dict[str, Any]:
    return {
        "prompt_version": result.prompt_version,
        "calls": result.calls,
        "chunks": result.chunks,
        "truncated": result.truncated,
        "dropped_ungrounded": result.dropped_ungrounded,
        "invalid_outputs": result.invalid_outputs,
        "off_taxonomy": result.off_taxonomy,
        "llm_latency_ms": result.llm_latency_ms,
        "wall_ms": result.wall_ms,
    }


class LLMStage:
    """Ask the configured model (vLLM in production, llama.cpp locally) the questions the plan lists: the
    safety policy question, doubtful clause types, an uncertain ticket category, a Cantonese rewrite."""

    name = "llm"

    def run(self, ctx: JobContext) -> None:
        plan = ctx.plan
        if not settings.LLM_ENABLED or plan is None or plan.policy == OFF:
            ctx.llm = LLMOutcome(enabled=False)
            return
        # The organisation's active adapter when it has one (`manage.py train_adapter`), else the base model.
        client = llm_client_for(ctx.document.organisation.slug)
        outcome = LLMOutcome(enabled=True, model=client.model, engine=client.config.engine)
        ctx.llm = outcome
        if not plan.asks_model:
            return  # the model is on; the rules left it nothing to answer (the plan says why)
        if not ctx.ask_model:
            outcome.error = "deferred: asked after the provisional result"
            return
        if ctx.job.organisation_id is not None:
            plan.standing_apply(standing_recheck(ctx.job.organisation_id, client.model))
            if not plan.asks_model:
                return  # the model fell below its standing floor while the job waited its turn (the plan says so)
        try:
            budget = self._shared_budget(ctx, client)
            # An answer that did not parse or quoted what the text does not say is counted against the model's
            # standing (`contracts.standing`) and leaves the rules' result as it stands: no review reason.
            for result in self._tasks(ctx, client, budget):
                outcome.tasks[result.task] = _task_provenance(result)
            self._gate(ctx, client, budget)
        except (LLMUnavailable, LLMRequestError) as exc:
            if ctx.may_wait_for_llm:
                raise LLMWait(f"{type(exc).__name__}: {exc}"[:500]) from exc
            logger.warning("job %s: LLM unavailable (%s); keeping the rules-only result", ctx.job.pk, exc)
            ctx.degraded = True
            ctx.review_reasons.append("llm_unavailable")
            outcome.error = f"{type(exc).__name__}: {exc}"[:500]
        # Who answered: the adapter, or the base model when the server refused the adapter (the client remembers
        # it and asks the base model from then on), so that the standing counts the answers of the model that gave
        # them.
        outcome.model = client.model
        outcome.breaker = llm_breaker_snapshot()

    @staticmethod
    def _shared_budget(ctx: JobContext, client: LLMClient) -> int | None:
        """One chunk budget for the questions asked about the same text, so that they share their prompt prefix
        (the fenced chunk comes first); None when only one of them is asked."""
        assert ctx.plan is not None
        prompts: list[tuple[str, dict[str, str]]] = []
        if ctx.plan.question("gate") is not None:
            prompts.append(("safety_check", {}))
        prompts.extend(ctx.desk.question_prompts(ctx.plan))
        return shared_budget(client, prompts) if len(prompts) > 1 else None

    def _gate(self, ctx: JobContext, client: LLMClient, budget: int | None) -> None:
        """Ask the policy question when planned; its answer can only raise the input gate's decision."""
        assert ctx.plan is not None
        if ctx.plan.question("gate") is None:
            return
        answer = policy_answer_ask(client, ctx.normalized_text().text, budget)
        if answer.status == "unavailable":
            raise LLMUnavailable("the safety policy question could not be asked")
        ctx.answer_marks.append(gate_answer_mark(ctx.decided_gate(), answer))
        ctx.gate_set(gate_llm_raise(ctx.decided_gate(), answer))

    def _tasks(self, ctx: JobContext, client: LLMClient, budget: int | None) -> list[LLMTaskResult]:
        assert ctx.plan is not None
        normalized = ctx.normalized_text()
        answers = ctx.desk.questions_ask(ctx.plan, client, normalized, budget=budget)
        ctx.answer_marks.extend(_desk_marks(ctx, answers))
        results = [answer.result for answer in answers]
        ctx.findings.extend(finding for answer in answers for finding in answer.findings)
        if ctx.plan.question("cantonese_rewrite") is not None:
            rewrite = cantonese_rewrite(client, normalized.text)
            results.append(rewrite)
            ctx.mandarin_rewrite = rewrite.output_text
        return results


def _desk_marks(ctx: JobContext, answers: list[ModelAnswer]) -> list[AnswerMark]:
    """The standing marks of the desk's answers: a desk answers its asked questions one each, in the plan's order
    (the questions of the plan that are not the shared ones)."""
    assert ctx.plan is not None
    questions = [q for q in ctx.plan.asked if q.name not in SHARED_QUESTIONS]
    if len(questions) != len(answers):
        logger.warning("job %s: %d desk answers to %d questions; not counted", ctx.job.pk, len(answers), len(questions))
        return []
    kinds = ctx.desk.conflict_kinds
    return [
        desk_answer_mark(q.name, answer.result, answer.findings, kinds, q.labels)
        for q, answer in zip(questions, answers, strict=True)
    ]


def model_draft(ctx: JobContext) -> str | None:
    """The model's draft of the outgoing text (a reply, a risk summary) from the merged findings; None when the
    model gives none (the template answers instead). Recorded with the model's other tasks."""
    try:
        result = response_draft(
            llm_client_for(ctx.document.organisation.slug),
            ctx.desk.kind,
            ctx.normalized_text().text,
            ctx.desk.draft_facts(ctx.findings),
        )
    except LLMError as exc:
        logger.info("job %s: no model draft (%s); using the template", ctx.job.pk, exc)
        return None
    assert ctx.llm is not None, "a draft is asked for only when the model answered"
    ctx.llm.tasks["response_draft"] = {
        "prompt_version": result.prompt_version,
        "calls": result.calls,
        "llm_latency_ms": result.llm_latency_ms,
        "invalid_outputs": result.invalid_outputs,
    }
    draft = (result.output_text or "").strip()
    return draft or None


def model_policy_answer(text: str, organisation_slug: str | None) -> PolicyAnswer:
    """The model's answer to the policy question about an outgoing text it drafted, asked of the model that drafted
    it (the organisation's adapter when it has one, as every other question of the job)."""
    return policy_answer_ask(llm_client_for(organisation_slug), text)


def policy_answer_ask(client: LLMClient, text: str, budget: int | None = None) -> PolicyAnswer:
    """Ask the model the policy question about `text` (in chunks of `budget` tokens, else its own)."""
    if not settings.LLM_ENABLED:
        return PolicyAnswer(None, "off")
    try:
        risk = safety_risk(client, text, settings.SAFETY_LLM_MAX_CHUNKS, budget=budget)
    except LLMInvalidOutput:
        return PolicyAnswer(None, "invalid_output")
    except LLMError:
        return PolicyAnswer(None, "unavailable")
    return PolicyAnswer(risk, "used")
