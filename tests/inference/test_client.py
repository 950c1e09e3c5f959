"""LLMClient against a real local HTTP server: retries, timeouts, 4xx, breaker, per-engine bodies, validation."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from inference.client import RETRY_NOTE, LLMClient
from inference.config import Engine, LLMConfig
from inference.errors import LLMInvalidOutput, LLMRequestError, LLMUnavailable
from inference.payloads import schema_for_llamacpp
from inference.schemas import clause_extraction_model
from tests.inference.fake_server import Scripted, ScriptedServer, completion, scripted_server
from tests.load.run_load import free_port

USER = [{"role": "user", "content": "分析这份合同。"}]
LABELS = ("保密", "违约金/违约责任")
VALID_CLAUSES = json.dumps({"findings": [{"label": "保密", "evidence": "双方应保密"}]}, ensure_ascii=False)


class Verdict(BaseModel):
    verdict: str


def client_for(
    server: ScriptedServer | str, *, engine: Engine = "llamacpp", sleeps: list[float] | None = None, **overrides: Any
) -> LLMClient:
    """A client on the scripted server with fast timeouts; backoff sleeps are recorded instead of slept."""
    base_url = server if isinstance(server, str) else server.base_url
    settings: dict[str, Any] = {"connect_timeout_s": 0.5, "read_timeout_s": 2.0, "max_retries": 2, **overrides}
    record = sleeps if sleeps is not None else []
    return LLMClient(LLMConfig(base_url=base_url, engine=engine, **settings), sleep=record.append)


def all_keys(node: Any) -> Iterator[str]:
    """Every key anywhere in a JSON body."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from all_keys(value)
    elif isinstance(node, list):
        for item in node:
            yield from all_keys(item)


def test_5xx_is_retried_with_jittered_exponential_backoff() -> None:
    sleeps: list[float] = []
    with scripted_server(Scripted(500, {}), Scripted(503, {}), completion("好")) as server:
        reply = client_for(server, sleeps=sleeps, backoff_base_s=0.1).chat(USER, max_tokens=8)
    assert reply.content == "好" and reply.attempts == 3
    assert len(server.requests) == 3
    assert 0.05 <= sleeps[0] <= 0.1 and 0.1 <= sleeps[1] <= 0.2


def test_5xx_until_retries_run_out_raises_unavailable() -> None:
    # Every answer is the fallback HTTP 500.
    with scripted_server() as server, pytest.raises(LLMUnavailable, match="3 attempts"):
        client_for(server).chat(USER, max_tokens=8)
    assert len(server.requests) == 3


def test_read_timeout_is_retried() -> None:
    with scripted_server(Scripted(200, {}, delay_s=0.6), completion("ok")) as server:
        reply = client_for(server, read_timeout_s=0.2).chat(USER, max_tokens=8)
    assert reply.content == "ok" and reply.attempts == 2


def test_connection_refused_is_retried_then_unavailable() -> None:
    sleeps: list[float] = []
    client = client_for(f"http://127.0.0.1:{free_port()}/v1", sleeps=sleeps, max_retries=1)
    with pytest.raises(LLMUnavailable, match="connection error"):
        client.chat(USER, max_tokens=8)
    assert len(sleeps) == 1
    assert client.stats().http_attempts == 2


def test_4xx_is_not_retried_and_does_not_count_against_the_server() -> None:
    with scripted_server(Scripted(400, {"error": "context_length_exceeded"})) as server:
        client = client_for(server)
        with pytest.raises(LLMRequestError) as caught:
            client.chat(USER, max_tokens=8)
    assert caught.value.status_code == 400
    assert len(server.requests) == 1
    assert client.breaker.snapshot().failures == 0


def test_open_breaker_fails_fast_without_a_network_call() -> None:
    with scripted_server() as server:
        client = client_for(server, max_retries=1, breaker_failure_threshold=2, breaker_cooldown_s=60)
        with pytest.raises(LLMUnavailable):
            client.chat(USER, max_tokens=8)
        assert client.breaker.state == "open"
        with pytest.raises(LLMUnavailable, match="circuit breaker is open"):
            client.chat(USER, max_tokens=8)
        with pytest.raises(LLMUnavailable, match="circuit breaker is open"):
            client.count_tokens("第一条")
    assert len(server.requests) == 2


def test_concurrency_limit_bounds_requests_in_flight() -> None:
    with scripted_server() as server:
        server.fallback = lambda _: Scripted(200, completion("ok").body, delay_s=0.2)
        client = client_for(server, max_concurrency=2)
        threads = [threading.Thread(target=client.chat, args=(USER,), kwargs={"max_tokens": 4}) for _ in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(server.requests) == 6
    assert server.max_in_flight == 2


def test_llamacpp_structured_request_is_json_object_with_the_live_schema() -> None:
    with scripted_server(completion(VALID_CLAUSES)) as server:
        reply = client_for(server).chat_structured(USER, clause_extraction_model(LABELS), max_tokens=64)
    body = server.chat_bodies()[0]
    response_format = body["response_format"]
    assert response_format["type"] == "json_object"
    label_schema = response_format["schema"]["properties"]["findings"]["items"]["properties"]["label"]
    assert label_schema["enum"] == list(LABELS)
    assert "$ref" not in json.dumps(response_format), "the schema is sent self-contained"
    assert reply.parsed.findings[0].label == "保密"
    assert reply.usage.prompt_tokens == 11 and reply.latency_ms > 0


def test_vllm_structured_request_is_strict_json_schema() -> None:
    with scripted_server(completion(VALID_CLAUSES)) as server:
        client_for(server, engine="vllm").chat_structured(USER, clause_extraction_model(LABELS), max_tokens=64)
    response_format = server.chat_bodies()[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["schema"]["properties"]["findings"]["maxItems"] == 8


def test_llamacpp_schema_drops_long_max_lengths_that_blow_up_its_grammar() -> None:
    schema = {"properties": {"evidence": {"type": "string", "maxLength": 200}, "code": {"maxLength": 8}}}
    assert schema_for_llamacpp(schema) == {"properties": {"evidence": {"type": "string"}, "code": {"maxLength": 8}}}


def test_choice_uses_structured_outputs_on_vllm() -> None:
    with scripted_server(completion("block")) as server:
        picked = client_for(server, engine="vllm").choice(USER, ["allow", "review", "block"])
    assert picked == "block"
    assert server.chat_bodies()[0]["structured_outputs"] == {"choice": ["allow", "review", "block"]}


def test_choice_uses_an_enum_schema_on_llamacpp() -> None:
    with scripted_server(completion('{"choice": "review"}')) as server:
        picked = client_for(server).choice(USER, ["allow", "review", "block"])
    assert picked == "review"
    schema = server.chat_bodies()[0]["response_format"]["schema"]
    assert schema["properties"]["choice"]["enum"] == ["allow", "review", "block"]


@pytest.mark.parametrize("engine", ["llamacpp", "vllm"])
def test_no_request_sends_guided_fields_or_a_system_turn(engine: Engine) -> None:
    logprobs = {"content": [{"token": "yes", "logprob": -0.1, "top_logprobs": []}]}
    answers = [completion(VALID_CLAUSES), completion("a" if engine == "vllm" else '{"choice": "a"}')]
    with scripted_server(*answers, completion("yes", logprobs=logprobs)) as server:
        client = client_for(server, engine=engine)
        client.chat_structured(USER, clause_extraction_model(LABELS), max_tokens=64)
        client.choice(USER, ["a", "b"])
        client.yes_probability(USER)
    bodies = server.chat_bodies()
    assert len(bodies) == 3
    for body in bodies:
        assert not [key for key in all_keys(body) if key.startswith("guided_")]
        assert {message["role"] for message in body["messages"]} == {"user"}


def test_system_message_is_refused_before_anything_is_sent() -> None:
    with scripted_server(completion("x")) as server:
        client = client_for(server)
        with pytest.raises(ValueError, match="system"):
            client.chat([{"role": "system", "content": "你是助手"}, *USER], max_tokens=8)
    assert server.requests == []


def test_invalid_json_is_retried_once_then_raised_and_counted() -> None:
    with scripted_server(completion("这不是 JSON"), completion('{"findings": [{"label": "定金"}]}')) as server:
        client = client_for(server)
        with pytest.raises(LLMInvalidOutput) as caught:
            client.chat_structured(USER, clause_extraction_model(LABELS), max_tokens=64)
    bodies = server.chat_bodies()
    assert len(bodies) == 2
    assert bodies[1]["messages"][-1]["content"].endswith(RETRY_NOTE)
    assert caught.value.raw == '{"findings": [{"label": "定金"}]}'
    assert caught.value.attempts == 2
    assert client.stats().invalid_outputs == 1


def test_an_invalid_reply_followed_by_a_valid_one_is_accepted() -> None:
    with scripted_server(completion('{"verdict": '), completion('{"verdict": "ok"}')) as server:
        reply = client_for(server).chat_structured(USER, Verdict, max_tokens=16)
    assert reply.parsed.verdict == "ok" and reply.attempts == 2
    assert reply.usage.completion_tokens == 14


def test_llamacpp_counts_tokens_at_extras_tokenize_and_caches_by_text() -> None:
    with scripted_server(Scripted(200, {"count": 7}), Scripted(200, {"count": 3})) as server:
        client = client_for(server)
        assert client.count_tokens("第一条 保密") == 7
        assert client.count_tokens("第一条 保密") == 7
        assert client.count_tokens("第二条") == 3
    assert [(r.path, r.body) for r in server.requests] == [
        ("/extras/tokenize/count", {"input": "第一条 保密"}),
        ("/extras/tokenize/count", {"input": "第二条"}),
    ]
    assert client.stats().token_cache_hits == 1


def test_vllm_counts_tokens_at_the_server_root_tokenize() -> None:
    with scripted_server(Scripted(200, {"count": 5, "max_model_len": 8192, "tokens": [1, 2, 3, 4, 5]})) as server:
        assert client_for(server, engine="vllm", model="gemma-2-9b-it").count_tokens("第一条") == 5
    assert server.requests[0].path == "/tokenize"
    assert server.requests[0].body == {"model": "gemma-2-9b-it", "prompt": "第一条"}


def test_yes_probability_normalises_yes_and_no_mass_from_first_token_logprobs() -> None:
    logprobs = {
        "content": [
            {
                "token": "Yes",
                "logprob": -0.1,
                "top_logprobs": [
                    {"token": "Yes", "logprob": -0.1},
                    {"token": " no", "logprob": -2.5},
                    {"token": "The", "logprob": -3.0},
                ],
            }
        ]
    }
    with scripted_server(completion("Yes", logprobs=logprobs)) as server:
        probability = client_for(server).yes_probability(USER)
    assert probability == pytest.approx(math.exp(-0.1) / (math.exp(-0.1) + math.exp(-2.5)))
    body = server.chat_bodies()[0]
    assert (body["logprobs"], body["top_logprobs"], body["max_tokens"]) == (True, 5, 1)


def test_yes_probability_without_a_yes_or_no_candidate_is_invalid_not_guessed() -> None:
    logprobs = {"content": [{"token": "The", "logprob": -0.2, "top_logprobs": [{"token": "A", "logprob": -1.0}]}]}
    with scripted_server(completion("The", logprobs=logprobs)) as server:
        client = client_for(server)
        with pytest.raises(LLMInvalidOutput):
            client.yes_probability(USER)
    assert client.stats().invalid_outputs == 1


def test_config_rejects_an_unknown_engine() -> None:
    with pytest.raises(ValueError, match="engine"):
        LLMConfig(engine="openai")  # type: ignore[arg-type]
