"""Exceptions the inference layer raises; on LLMUnavailable a job waits for the model (bounded), then goes to review."""

from __future__ import annotations


class LLMError(Exception):
    """Base class of every inference failure."""


class LLMUnavailable(LLMError):
    """The server cannot be used now: breaker open, timeouts, connection errors or 5xx after retries."""


class LLMRequestError(LLMError):
    """The server rejected the request (HTTP 4xx): our bug or an oversized prompt, never retried."""

    def __init__(self, status_code: int, body: str) -> None:
        super().__init__(f"LLM server rejected the request with HTTP {status_code}: {body[:500]}")
        self.status_code = status_code
        self.body = body


class LLMInvalidOutput(LLMError):
    """The reply did not validate against the schema, even after one retry; it is counted, never guessed."""

    def __init__(self, message: str, raw: str, *, latency_ms: float = 0.0, attempts: int = 0) -> None:
        super().__init__(message)
        self.raw = raw
        self.latency_ms = latency_ms
        self.attempts = attempts
