"""The LLM stage: asks the model what the plan lists, adds grounded findings; on an outage the job waits for the
model (`LLMWait`) while it may, then degrades to rules-only."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings

from contracts.cascade import OFF
from contracts.findings import llm_clause_findings, llm_ticket_finding
from contracts.gate import gate_llm_raise
from contracts.llm import llm_breaker_snapshot, llm_client
from contracts.stages.base import JobContext, LLMOutcome, LLMWait
from contracts.stages.gate import gate_reasons
from inference.answers import LLMTaskResult
from inference.chunking import Chunk
from inference.client import LLMClient
from inference.errors import LLMRequestError, LLMUnavailable
from inference.questions import (
    cantonese_rewrite,
    clause_prompt_values,
    clauses_extract,
    shared_budget,
    ticket_classify,
    ticket_prompt_values,
)
from rules.normalize import NormalizedText
from rules.tickets.taxonomy import load_taxonomy

logger = logging.getLogger(__name__)


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
        client = llm_client()
        outcome = LLMOutcome(enabled=True, model=client.config.model, engine=client.config.engine)
        ctx.llm = outcome
        if not plan.asks_model:
            return  # the model is on; the rules left it nothing to answer (the plan says why)
        if not ctx.ask_model:
            outcome.error = "deferred: asked after the provisional result"
            return
        try:
            budget = self._shared_budget(ctx, client)
            for result in self._tasks(ctx, client, budget):
                outcome.tasks[result.task] = _task_provenance(result)
                if result.invalid_outputs and not result.calls - result.invalid_outputs:
                    ctx.review_reasons.append("llm_invalid_output")
            self._gate(ctx, budget)
        except (LLMUnavailable, LLMRequestError) as exc:
            if ctx.may_wait_for_llm:
                raise LLMWait(f"{type(exc).__name__}: {exc}"[:500]) from exc
            logger.warning("job %s: LLM unavailable (%s); keeping the rules-only result", ctx.job.pk, exc)
            ctx.degraded = True
            ctx.review_reasons.append("llm_unavailable")
            outcome.error = f"{type(exc).__name__}: {exc}"[:500]
        outcome.breaker = llm_breaker_snapshot()

    @staticmethod
    def _shared_budget(ctx: JobContext, client: LLMClient) -> int | None:
        """One chunk budget for the questions asked about the same text, so that they share their prompt prefix
        (the fenced chunk comes first); None when only one of them is asked."""
        assert ctx.plan is not None
        prompts: list[tuple[str, dict[str, str]]] = []
        if ctx.plan.question("gate") is not None:
            prompts.append(("safety_check", {}))
        if (clauses := ctx.plan.question("clauses")) is not None:
            prompts.append(("clause_extraction", clause_prompt_values(clauses.labels)))
        if ctx.plan.question("ticket_category") is not None:
            prompts.append(("ticket_classification", ticket_prompt_values(load_taxonomy())))
        return shared_budget(client, prompts) if len(prompts) > 1 else None

    def _gate(self, ctx: JobContext, budget: int | None) -> None:
        assert ctx.plan is not None
        if ctx.plan.question("gate") is None:
            return
        decision = gate_llm_raise(ctx.decided_gate(), ctx.normalized_text().text, budget=budget)
        if decision.llm_status == "unavailable":
            raise LLMUnavailable("the safety policy question could not be asked")
        gate_reasons(ctx, decision)

    def _tasks(self, ctx: JobContext, client: LLMClient, budget: int | None) -> list[LLMTaskResult]:
        assert ctx.plan is not None
        normalized = ctx.normalized_text()
        results: list[LLMTaskResult] = []
        clauses = ctx.plan.question("clauses")
        if clauses is not None:
            wanted = evidence_chunks(normalized, clauses.spans) if clauses.spans else None
            result = clauses_extract(client, normalized.text, clauses.labels, budget=budget, chunk_wanted=wanted)
            results.append(result)
            ctx.findings.extend(llm_clause_findings(normalized, result.findings, result.prompt_version))
        if ctx.plan.question("ticket_category") is not None:
            result = ticket_classify(client, normalized.text, load_taxonomy(), budget=budget)
            results.append(result)
            ctx.findings.extend(llm_ticket_finding(normalized, f, result.prompt_version) for f in result.findings)
        if ctx.plan.question("cantonese_rewrite") is not None:
            rewrite = cantonese_rewrite(client, normalized.text)
            results.append(rewrite)
            ctx.mandarin_rewrite = rewrite.output_text
        return results


def evidence_chunks(normalized: NormalizedText, spans: Sequence[tuple[int, int]]) -> Callable[[Chunk], bool]:
    """Accept the chunks (of the normalized text) that overlap one of `spans` (of the original text)."""

    def wanted(chunk: Chunk) -> bool:
        start, end = normalized.to_original(chunk.offset, chunk.end)
        return any(s < end and start < e for s, e in spans)

    return wanted
