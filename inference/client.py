"""The one place that talks to the LLM server: timeouts, retries, concurrency limit, circuit breaker, schemas."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from inference.adapters import AdapterMemory, model_for, model_unknown
from inference.breaker import CircuitBreaker
from inference.config import LLMConfig
from inference.errors import LLMInvalidOutput, LLMRequestError, LLMUnavailable
from inference.logprobs import first_token_logprobs, yes_share
from inference.payloads import (
    Message,
    chat_body,
    choice_fields,
    messages_check,
    schema_inline,
    structured_fields,
    token_count_parse,
    tokenize_request,
)

ModelT = TypeVar("ModelT", bound=BaseModel)
TOKEN_CACHE_SIZE = 4096
# Appended to the last user turn when a reply fails validation: a different prompt gets a different reply even at
# temperature 0, and it costs a few tokens instead of echoing the whole bad reply back into the context.
RETRY_NOTE = (
    "\n\n（上一次回复不是符合要求的 JSON。The previous reply was not valid JSON for the schema: "
    "reply again with JSON only, short evidence quotes.）"
)


class _Retryable(Exception):
    """One attempt failed in a way worth retrying (timeout, connection error, 5xx, unreadable body)."""

    def __init__(self, message: str, started: float) -> None:
        super().__init__(message)
        self.elapsed_ms = (time.perf_counter() - started) * 1000


@dataclass(frozen=True)
class Usage:
    """Token counts the server reported for one reply (summed over retries)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)


@dataclass(frozen=True)
class ChatReply:
    """One chat completion: text, first choice as sent, raw HTTP time, token usage and HTTP attempts made."""

    content: str
    choice: Mapping[str, Any]
    finish_reason: str | None
    latency_ms: float
    usage: Usage
    attempts: int


@dataclass(frozen=True)
class StructuredReply(Generic[ModelT]):
    """A reply that validated against its schema, with the raw text and what it cost."""

    parsed: ModelT
    raw: str
    latency_ms: float
    usage: Usage
    attempts: int


@dataclass(frozen=True)
class ServerState:
    """What the model server says of itself: `up` (it serves the configured model), `loading` (it answers 503
    while it loads one) or `down` (no answer, an error, another model), with what it said."""

    status: Literal["up", "loading", "down"]
    detail: str


@dataclass(frozen=True)
class ClientStats:
    """Counters since the client was built (for metrics)."""

    requests: int
    http_attempts: int
    invalid_outputs: int
    unavailable: int
    token_cache_hits: int
    prompt_tokens: int = 0  # as the server reported them (usage), over every chat completion
    completion_tokens: int = 0


class LLMClient:
    """A thread-safe client for an OpenAI-compatible server (vLLM or llama.cpp) configured by LLMConfig."""

    def __init__(
        self,
        config: LLMConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        adapter_ttl_s: float = 300.0,
    ) -> None:
        self.config = config
        self.adapter: str | None = None  # a LoRA adapter's name: asked instead of config.model (`for_adapter`)
        self.adapters = AdapterMemory(adapter_ttl_s)
        self.breaker = CircuitBreaker(config.breaker_failure_threshold, config.breaker_cooldown_s, clock=clock)
        timeout = httpx.Timeout(config.read_timeout_s, connect=config.connect_timeout_s)
        self._http = httpx.Client(timeout=timeout, transport=transport)
        self._slots = threading.BoundedSemaphore(config.max_concurrency)
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._token_cache: OrderedDict[str, int] = OrderedDict()
        counters = ("requests", "http_attempts", "invalid_outputs", "unavailable", "hits")
        self._counters = dict.fromkeys((*counters, "prompt_tokens", "completion_tokens"), 0)

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    @property
    def model(self) -> str:
        """The model this client's questions name: its adapter unless the server recently said it lacks it."""
        return model_for(self.config.model, self.adapter, self.adapters)

    def for_adapter(self, name: str | None) -> LLMClient:
        """This client naming adapter `name` in its questions, sharing connections, breaker and counters."""
        view = copy.copy(self)
        view.adapter = name
        return view

    def _count(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self._counters[name] += amount

    def stats(self) -> ClientStats:
        """Return the request, attempt, invalid-output, unavailable and token-cache counters."""
        with self._lock:
            c = dict(self._counters)
        return ClientStats(
            c["requests"],
            c["http_attempts"],
            c["invalid_outputs"],
            c["unavailable"],
            c["hits"],
            c["prompt_tokens"],
            c["completion_tokens"],
        )

    def server_state(self, *, timeout_s: float) -> ServerState:
        """Ask the server which models it serves (one GET /models within `timeout_s`, outside the breaker and the
        retries, which are for the jobs' calls)."""
        try:
            response = self._http.get(f"{self.config.base_url.rstrip('/')}/models", timeout=timeout_s)
        except httpx.HTTPError as exc:
            return ServerState("down", f"{type(exc).__name__}: {exc}"[:200])
        if response.status_code == 503:  # llama.cpp and vLLM while the model loads
            return ServerState("loading", "HTTP 503: the server is loading the model")
        if response.status_code != 200:
            return ServerState("down", f"HTTP {response.status_code}")
        try:
            listed = response.json()["data"]
            served = [str(model["id"]) for model in listed]
        except (ValueError, KeyError, TypeError):
            return ServerState("down", "the server's model list is not an OpenAI-compatible one")
        if self.config.model not in served:
            return ServerState("down", f"the server serves {', '.join(served) or 'no model'}, not {self.config.model}")
        return ServerState("up", self.config.model)

    def backoff_s(self, retry: int) -> float:
        """Full-jitter exponential backoff before retry number `retry` (0-based), capped by the config."""
        ceiling = min(self.config.backoff_max_s, self.config.backoff_base_s * (2**retry))
        return self._rng.uniform(ceiling / 2, ceiling)

    def _attempt(self, url: str, body: Mapping[str, Any]) -> tuple[dict[str, Any], float]:
        """Send one POST inside a concurrency slot; return (payload, HTTP ms) or raise _Retryable/LLMRequestError."""
        # Waiting for a slot is queueing on our side, not server time: it stays out of the latency.
        wait_s = self.config.connect_timeout_s + self.config.read_timeout_s
        if not self._slots.acquire(timeout=wait_s):
            self._count("unavailable")
            raise LLMUnavailable(f"no free LLM slot within {wait_s:.0f}s ({self.config.max_concurrency} busy)")
        self._count("http_attempts")
        started = time.perf_counter()
        try:
            response = self._http.post(url, json=body)
        except httpx.TimeoutException as exc:
            raise _Retryable(f"timeout: {exc!r}", started) from exc
        except httpx.TransportError as exc:
            raise _Retryable(f"connection error: {exc!r}", started) from exc
        finally:
            self._slots.release()
        if response.status_code >= 500:
            raise _Retryable(f"HTTP {response.status_code}: {response.text[:300]}", started)
        if response.status_code >= 400:
            # The server is alive and answered; the request is wrong and retrying cannot fix it.
            self.breaker.record_success()
            raise LLMRequestError(response.status_code, response.text)
        try:
            payload = response.json()
        except json.JSONDecodeError as exc:
            raise _Retryable(f"HTTP {response.status_code} with a body that is not JSON", started) from exc
        if not isinstance(payload, dict):
            raise _Retryable("reply is not a JSON object", started)
        return payload, (time.perf_counter() - started) * 1000

    def _post(self, url: str, body: Mapping[str, Any]) -> tuple[dict[str, Any], float, int]:
        """POST with the breaker and bounded retries; return (payload, HTTP ms over all attempts, attempts)."""
        self._count("requests")
        spent_ms = 0.0
        last_error = ""
        for attempt in range(self.config.max_retries + 1):
            if not self.breaker.allow():
                self._count("unavailable")
                raise LLMUnavailable(f"circuit breaker is {self.breaker.state}; not calling {url}{last_error}")
            try:
                payload, elapsed_ms = self._attempt(url, body)
            except _Retryable as exc:
                spent_ms += exc.elapsed_ms
                self.breaker.record_failure()
                last_error = f" (last error: {exc})"
                if attempt < self.config.max_retries:
                    self._sleep(self.backoff_s(attempt))
                continue
            except LLMRequestError:
                raise
            except BaseException:
                # Anything unexpected still reports back, so a half-open trial slot can never stay taken.
                self.breaker.record_failure()
                raise
            self.breaker.record_success()
            return payload, spent_ms + elapsed_ms, attempt + 1
        self._count("unavailable")
        raise LLMUnavailable(f"LLM server failed {self.config.max_retries + 1} attempts at {url}{last_error}")

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float = 0.0,
        extra: Mapping[str, Any] | None = None,
    ) -> ChatReply:
        """One chat completion (no system turn allowed); raise LLMUnavailable, LLMRequestError."""
        model = self.model
        body = chat_body(model, messages, max_tokens=max_tokens, temperature=temperature, extra=extra)
        try:
            payload, latency_ms, attempts = self._post(f"{self.config.base_url.rstrip('/')}/chat/completions", body)
        except LLMRequestError as exc:
            if model == self.config.model or not model_unknown(exc):
                raise
            self.adapters.unknown_mark(model)  # the server lacks the adapter: the base model answers meanwhile
            return self.chat(messages, max_tokens=max_tokens, temperature=temperature, extra=extra)
        try:
            choice = payload["choices"][0]
            content = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMUnavailable(f"malformed chat completion from the server: {str(payload)[:300]}") from exc
        reported = payload.get("usage") or {}
        usage = Usage(int(reported.get("prompt_tokens") or 0), int(reported.get("completion_tokens") or 0))
        with self._lock:
            self._counters["prompt_tokens"] += usage.prompt_tokens
            self._counters["completion_tokens"] += usage.completion_tokens
        return ChatReply(
            content=content,
            choice=choice,
            finish_reason=choice.get("finish_reason"),
            latency_ms=latency_ms,
            usage=usage,
            attempts=attempts,
        )

    def _chat_validated(
        self,
        messages: Sequence[Message],
        extra: Mapping[str, Any],
        parse: Callable[[str], ModelT],
        *,
        max_tokens: int,
        temperature: float,
    ) -> StructuredReply[ModelT]:
        """Chat, parse with `parse`; on a parse failure retry once with a note, then raise LLMInvalidOutput."""
        turns = messages_check(messages)
        latency_ms, usage, attempts, error = 0.0, Usage(), 0, ""
        for round_number in range(2):
            if round_number:
                turns[-1] = {"role": turns[-1]["role"], "content": turns[-1]["content"] + RETRY_NOTE}
            reply = self.chat(turns, max_tokens=max_tokens, temperature=temperature, extra=extra)
            latency_ms, usage, attempts = latency_ms + reply.latency_ms, usage + reply.usage, attempts + reply.attempts
            try:
                parsed = parse(reply.content)
            except (ValidationError, ValueError) as exc:
                error = f"{type(exc).__name__}: {str(exc)[:300]} (finish_reason={reply.finish_reason})"
                continue
            return StructuredReply(parsed, reply.content, latency_ms, usage, attempts)
        self._count("invalid_outputs")
        raise LLMInvalidOutput(
            f"reply failed validation twice; {error}", reply.content, latency_ms=latency_ms, attempts=attempts
        )

    def chat_structured(
        self,
        messages: Sequence[Message],
        schema: type[ModelT],
        *,
        max_tokens: int,
        temperature: float = 0.0,
    ) -> StructuredReply[ModelT]:
        """Chat constrained to `schema`'s JSON schema and validated by it; raise LLMInvalidOutput after one retry."""
        json_schema = schema_inline(schema.model_json_schema())
        extra = structured_fields(self.config.engine, schema.__name__, json_schema)
        return self._chat_validated(
            messages, extra, schema.model_validate_json, max_tokens=max_tokens, temperature=temperature
        )

    def choice(self, messages: Sequence[Message], options: Sequence[str], *, max_tokens: int = 32) -> str:
        """Return the one of `options` the model picks; raise LLMInvalidOutput when it picks none twice."""
        if not options:
            raise ValueError("choice needs at least one option")
        allowed = list(options)

        def parse(raw: str) -> _Choice:
            text = raw.strip()
            if self.config.engine == "llamacpp":
                # llama.cpp has no choice mode: the reply is {"choice": ...} constrained by an enum schema.
                text = str(json.loads(text).get("choice", ""))
            if text not in allowed:
                raise ValueError(f"{text[:80]!r} is not one of {allowed}")
            return _Choice(value=text)

        extra = choice_fields(self.config.engine, allowed)
        return self._chat_validated(messages, extra, parse, max_tokens=max_tokens, temperature=0.0).parsed.value

    def yes_probability(self, messages: Sequence[Message], *, top_logprobs: int = 5) -> float:
        """P(yes) from the first reply token's log-probabilities (unconstrained, one token); raise LLMInvalidOutput
        when neither a yes nor a no token is among the candidates (never guessed)."""
        extra = {"logprobs": True, "top_logprobs": top_logprobs}
        reply = self.chat(messages, max_tokens=1, temperature=0.0, extra=extra)
        candidates = first_token_logprobs(reply.choice)
        probability = yes_share(candidates)
        if probability is None:
            self._count("invalid_outputs")
            raise LLMInvalidOutput(
                f"no yes/no token among the first-token candidates {sorted(candidates)[:10]}",
                reply.content,
                latency_ms=reply.latency_ms,
                attempts=reply.attempts,
            )
        return probability

    def count_tokens(self, text: str) -> int:
        """Token count of `text` by the server's own tokenizer (special tokens included), LRU-cached by hash."""
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self._lock:
            if key in self._token_cache:
                self._token_cache.move_to_end(key)
                self._counters["hits"] += 1
                return self._token_cache[key]
        path, body = tokenize_request(self.config.engine, self.config.model, text)
        payload, _, _ = self._post(self.config.server_root + path, body)
        try:
            count = token_count_parse(payload)
        except ValueError as exc:
            raise LLMUnavailable(str(exc)) from exc
        with self._lock:
            self._token_cache[key] = count
            if len(self._token_cache) > TOKEN_CACHE_SIZE:
                self._token_cache.popitem(last=False)
        return count


class _Choice(BaseModel):
    """A validated pick among the options."""

    value: str
