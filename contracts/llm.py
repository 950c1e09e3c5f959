"""The Django side of the LLM: a configuration built from settings and one client per process."""

from __future__ import annotations

import threading
from typing import Any, cast

from django.conf import settings

from contracts.learned.adapter_pairs import adapter_current_name
from inference.client import LLMClient
from inference.config import Engine, LLMConfig

_lock = threading.Lock()
_client: LLMClient | None = None
_client_config: LLMConfig | None = None


def llm_config() -> LLMConfig:
    """Return the LLM configuration the settings describe."""
    return LLMConfig(
        base_url=settings.LLM_BASE_URL,
        model=settings.LLM_MODEL,
        engine=cast(Engine, settings.LLM_ENGINE),
        read_timeout_s=settings.LLM_TIMEOUT_S,
        max_retries=settings.LLM_MAX_RETRIES,
        max_concurrency=settings.LLM_MAX_CONCURRENCY,
        breaker_failure_threshold=settings.LLM_BREAKER_FAILURES,
        breaker_cooldown_s=settings.LLM_BREAKER_COOLDOWN_S,
        context_window_tokens=settings.LLM_CONTEXT_TOKENS,
        max_output_tokens=settings.LLM_MAX_OUTPUT_TOKENS,
    )


def llm_client() -> LLMClient:
    """Return this process's client (its circuit breaker is shared by every job the process runs)."""
    global _client, _client_config
    config = llm_config()
    with _lock:
        if _client is None or _client_config != config:
            if _client is not None:
                _client.close()
            _client = LLMClient(config, adapter_ttl_s=settings.DOCGATE_ADAPTER_UNKNOWN_TTL_S)
            _client_config = config
        return _client


def llm_client_for(organisation_slug: str | None) -> LLMClient:
    """This process's client asking the organisation's active adapter (the base model when it has none, or while
    the server says it does not have it)."""
    client = llm_client()
    return client.for_adapter(adapter_current_name(organisation_slug) if organisation_slug else None)


def llm_breaker_snapshot() -> dict[str, Any]:
    """Return the breaker's state and counters for health checks and provenance."""
    snapshot = llm_client().breaker.snapshot()
    return {
        "state": getattr(snapshot.state, "value", str(snapshot.state)),
        "consecutive_failures": snapshot.consecutive_failures,
        "openings": snapshot.openings,
    }
