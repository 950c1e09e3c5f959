"""The LLM pipeline stage: runs after the rules, adds grounded LLM findings, degrades to rules-only on outage."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings

from contracts.findings import span_original

if TYPE_CHECKING:
    from contracts.pipeline import JobContext
    from inference.results import LLMTaskResult

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
            ctx.provenance["llm"] = {"enabled": False}
            return
        from contracts.llm import llm_breaker_snapshot, llm_client
        from inference.errors import LLMRequestError, LLMUnavailable

        client = llm_client()
        provenance: dict[str, Any] = {
            "enabled": True,
            "model": client.config.model,
            "engine": client.config.engine,
            "tasks": {},
        }
        ctx.provenance["llm"] = provenance
        try:
            for result in self._tasks(ctx, client):
                provenance["tasks"][result.task] = _task_provenance(result)
                if result.invalid_outputs and not result.calls - result.invalid_outputs:
                    ctx.review_reasons.append("llm_invalid_output")
        except (LLMUnavailable, LLMRequestError) as exc:
            logger.warning("job %s: LLM unavailable (%s); keeping the rules-only result", ctx.job.pk, exc)
            ctx.degraded = True
            ctx.review_reasons.append("llm_unavailable")
            provenance["error"] = f"{type(exc).__name__}: {exc}"[:500]
        provenance["breaker"] = llm_breaker_snapshot()

    def _tasks(self, ctx: JobContext, client: Any) -> list[LLMTaskResult]:
        from inference.tasks import cantonese_rewrite, clauses_extract, ticket_classify

        normalized = ctx.normalized
        assert normalized is not None, "the normalize stage runs first"
        results: list[LLMTaskResult] = []
        if ctx.document.kind == "contract":
            from rules.clauses import load_pack

            result = clauses_extract(client, normalized.text, tuple(load_pack().clauses))
            results.append(result)
            ctx.findings.extend(
                {
                    "kind": "clause",
                    "label": f.label,
                    "span": span_original(normalized, f.start, f.end),
                    "normalized_span": [f.start, f.end],
                    "evidence": f.quote,
                    "status": "stipulated",
                    "source": "llm",
                    "prompt_version": result.prompt_version,
                }
                for f in result.findings
            )
        else:
            from rules.tickets.taxonomy import load_taxonomy

            result = ticket_classify(client, normalized.text, load_taxonomy())
            results.append(result)
            for f in result.findings:
                kind = "ticket_category" if f.kind == "category" else "urgency"
                ctx.findings.append(
                    {
                        "kind": kind,
                        "label": f.label,
                        **dict(f.attributes),
                        "span": span_original(normalized, f.start, f.end),
                        "evidence": f.quote,
                        "source": "llm",
                        "prompt_version": result.prompt_version,
                    }
                )
        if normalized.report.is_cantonese:
            rewrite = cantonese_rewrite(client, normalized.text)
            results.append(rewrite)
            ctx.artifacts["mandarin_rewrite"] = rewrite.output_text
        return results
