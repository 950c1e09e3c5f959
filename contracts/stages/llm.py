"""The LLM stage: runs after the rules, adds grounded LLM findings, degrades to rules-only on outage."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from contracts.findings import llm_clause_findings, llm_ticket_finding
from contracts.llm import llm_breaker_snapshot, llm_client
from contracts.stages.base import JobContext, LLMOutcome
from inference.client import LLMClient
from inference.errors import LLMRequestError, LLMUnavailable
from inference.questions import cantonese_rewrite, clauses_extract, ticket_classify
from inference.results import LLMTaskResult
from rules.clauses import load_pack
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
    """Ask the configured model (vLLM in production, llama.cpp locally) for clauses or the ticket's category."""

    name = "llm"

    def run(self, ctx: JobContext) -> None:
        if not settings.LLM_ENABLED:
            ctx.llm = LLMOutcome(enabled=False)
            return
        client = llm_client()
        outcome = LLMOutcome(enabled=True, model=client.config.model, engine=client.config.engine)
        ctx.llm = outcome
        try:
            for result in self._tasks(ctx, client):
                outcome.tasks[result.task] = _task_provenance(result)
                if result.invalid_outputs and not result.calls - result.invalid_outputs:
                    ctx.review_reasons.append("llm_invalid_output")
        except (LLMUnavailable, LLMRequestError) as exc:
            logger.warning("job %s: LLM unavailable (%s); keeping the rules-only result", ctx.job.pk, exc)
            ctx.degraded = True
            ctx.review_reasons.append("llm_unavailable")
            outcome.error = f"{type(exc).__name__}: {exc}"[:500]
        outcome.breaker = llm_breaker_snapshot()

    def _tasks(self, ctx: JobContext, client: LLMClient) -> list[LLMTaskResult]:
        normalized = ctx.normalized_text()
        results: list[LLMTaskResult] = []
        if ctx.document.kind == "contract":
            result = clauses_extract(client, normalized.text, tuple(load_pack().clauses))
            results.append(result)
            ctx.findings.extend(llm_clause_findings(normalized, result.findings, result.prompt_version))
        else:
            result = ticket_classify(client, normalized.text, load_taxonomy())
            results.append(result)
            ctx.findings.extend(llm_ticket_finding(normalized, f, result.prompt_version) for f in result.findings)
        if normalized.report.is_cantonese:
            rewrite = cantonese_rewrite(client, normalized.text)
            results.append(rewrite)
            ctx.mandarin_rewrite = rewrite.output_text
        return results
