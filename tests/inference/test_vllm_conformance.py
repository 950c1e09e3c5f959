"""vLLM conformance (`make test-vllm`): DocGate's production request shapes against a real vLLM OpenAI server
(community CPU build, Gemma 3 270M converted to bf16, Gemma 2's chat template) started by a fixture, not a mock.

What must hold: every task gets schema-valid JSON through `response_format` json_schema, `choice` goes through
`structured_outputs`, logprobs feed `yes_probability`, token counts come from vLLM's `/tokenize`, no request ever
carries a system turn (the template makes vLLM answer 400 to one, which the negative test proves) or the silently
ignored `guided_*` fields, a quote absent from the text is dropped, and a server that stops opens the breaker.
The model is a base model that echoes, so nothing here asserts that its answers are right.
Skipped unless DOCGATE_VLLM=1; then a missing `tests/vllm/setup.sh` build fails the run instead.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from inference.answers import LLMTaskResult
from inference.client import RETRY_NOTE, LLMClient
from inference.config import LLMConfig
from inference.errors import LLMInvalidOutput
from inference.prompts import prompt_render
from inference.questions import (
    cantonese_rewrite,
    clause_prompt_values,
    clauses_extract,
    response_draft,
    safety_risk,
    ticket_classify,
)
from rules.clauses.pack import load_pack
from rules.tickets.taxonomy import load_taxonomy
from tests.inference.test_llm_server import (
    CONTRACT,
    TICKET,
    assert_absent_quote_dropped,
    assert_breaker_opens_and_recovers,
    assert_grounded,
    synthetic_contract,
)
from tests.vllm_server import VLLM_MODEL_DIR, VLLMServer, vllm_server

pytestmark = pytest.mark.llm
CONTEXT = 2048  # the server's --max-model-len: vLLM answers 400 to a prompt + max_tokens that does not fit
# Room for a full clause list: at 128 tokens the echoing base model's JSON is cut off (finish_reason=length).
MAX_OUT = 256
CHAT_PATH = "/v1/chat/completions"
TASK_FIELDS = {"response_format"}
CHOICE_FIELDS = {"structured_outputs"}


class WireLog(httpx.BaseTransport):
    """A real HTTP transport that keeps the path and JSON body of every request the client sends."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.requests: list[tuple[str, dict[str, Any]]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.url.path, json.loads(request.content) if request.content else {}))
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()

    def chat_bodies(self) -> list[dict[str, Any]]:
        return [body for path, body in self.requests if path == CHAT_PATH]


@pytest.fixture(scope="module")
def server() -> Iterator[VLLMServer]:
    with vllm_server(max_model_len=CONTEXT) as running:
        yield running


@pytest.fixture
def wire() -> Iterator[WireLog]:
    """The requests of one test; afterwards, none may carry a system turn or a `guided_*` field."""
    log = WireLog()
    yield log
    for body in log.chat_bodies():
        assert {message["role"] for message in body["messages"]} <= {"user", "assistant"}, body["messages"]
        assert not [key for key in body if key.startswith("guided_")], sorted(body)


@pytest.fixture
def client(server: VLLMServer, wire: WireLog) -> Iterator[LLMClient]:
    config = LLMConfig(
        base_url=server.base_url,
        engine="vllm",
        context_window_tokens=CONTEXT,
        max_output_tokens=MAX_OUT,
        read_timeout_s=120,
    )
    with LLMClient(config, transport=wire) as llm_client:
        yield llm_client


def raw_chat(server: VLLMServer, messages: list[dict[str, str]], **fields: Any) -> httpx.Response:
    """A chat request that bypasses DocGate's client (to probe what the server itself accepts)."""
    body = {"model": "gemma-3-270m", "messages": messages, "max_tokens": 8, "temperature": 0.0, **fields}
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120)


def assert_schema_valid(result: LLMTaskResult, engine: str = "vllm") -> None:
    assert result.calls >= 1 and result.invalid_outputs == 0, f"{result.task}: a reply failed its schema"
    assert (result.model, result.engine) == ("gemma-3-270m", engine)
    assert result.wall_ms >= result.llm_latency_ms > 0 and result.prompt_tokens > 0


def test_vllm_rejects_a_system_turn_so_passing_runs_prove_docgate_sends_none(server: VLLMServer) -> None:
    system = raw_chat(server, [{"role": "system", "content": "简短回答"}, {"role": "user", "content": "你好"}])
    assert system.status_code == 400 and "System role not supported" in system.text
    assert raw_chat(server, [{"role": "user", "content": "简短回答。你好"}]).status_code == 200


def test_token_counts_come_from_vllms_tokenize_endpoint(server: VLLMServer, client: LLMClient, wire: WireLog) -> None:
    text = "第一条 甲方应当支付违约金。"
    reply = httpx.post(f"{server.server_root}/tokenize", json={"model": "gemma-3-270m", "prompt": text}).json()
    assert client.count_tokens(text) == reply["count"] == len(reply["tokens"]) > 1
    assert client.count_tokens(text) == reply["count"] and client.stats().token_cache_hits == 1
    assert [path for path, _ in wire.requests] == ["/tokenize"]


def test_ticket_classification_is_schema_valid_json_sent_as_json_schema(client: LLMClient, wire: WireLog) -> None:
    result = ticket_classify(client, TICKET, load_taxonomy())
    assert_schema_valid(result)
    assert result.prompt_version == "ticket_classification.v2"
    assert_grounded(result.findings, TICKET)
    (body,) = wire.chat_bodies()
    response_format = body["response_format"]
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
    schema = response_format["json_schema"]["schema"]
    assert set(schema["properties"]["level1"]["enum"]) == set(load_taxonomy().level1_names)
    assert "$defs" not in json.dumps(schema), "schemas go out self-contained"


def test_every_other_task_is_schema_valid_and_keeps_only_grounded_findings(client: LLMClient, wire: WireLog) -> None:
    clauses = clauses_extract(client, CONTRACT, list(load_pack().clauses))
    rewrite = cantonese_rewrite(client, "佢哋喺度搞咗好耐，點解仲未整好？")
    draft = response_draft(client, "contract", CONTRACT, "已识别条款：保密、违约责任；缺少：不可抗力")
    for result in (clauses, rewrite, draft):
        assert_schema_valid(result)
    assert_grounded(clauses.findings, CONTRACT)
    assert_grounded(draft.findings, CONTRACT)
    assert rewrite.output_text and draft.output_text is not None
    bodies = wire.chat_bodies()
    assert len(bodies) >= clauses.calls + rewrite.calls + draft.calls  # plus any validation retry rounds
    assert {body["response_format"]["type"] for body in bodies} == {"json_schema"}
    assert {body["response_format"]["json_schema"]["name"] for body in bodies} == {
        "ClauseExtraction",
        "CantoneseRewrite",
        "ResponseDraft",
    }


def test_a_long_contract_is_chunked_by_vllms_tokenizer_and_every_chunk_fits(client: LLMClient) -> None:
    text = synthetic_contract(6_000)
    result = clauses_extract(client, text, list(load_pack().clauses))
    # An oversized chunk would be a 400 (LLMRequestError) from vLLM: reaching here means every prompt fit.
    assert result.chunks > 1 and result.calls == result.chunks
    assert_schema_valid(result)
    assert_grounded(result.findings, text)


def test_a_quote_absent_from_the_text_is_dropped_and_counted(client: LLMClient) -> None:
    assert_absent_quote_dropped(client, MAX_OUT)


def test_choice_goes_through_structured_outputs(server: VLLMServer, client: LLMClient, wire: WireLog) -> None:
    options = ["DG-ALLOW-7", "DG-REVIEW-8", "DG-BLOCK-9"]
    assert client.choice([{"role": "user", "content": "allow, review or block?"}], options) in options
    (body,) = wire.chat_bodies()
    assert body["structured_outputs"] == {"choice": options} and "response_format" not in body
    # Why the client never sends the old field: vLLM accepts it and constrains nothing.
    ignored = raw_chat(server, [{"role": "user", "content": "allow, review or block?"}], guided_choice=options)
    assert ignored.status_code == 200
    assert ignored.json()["choices"][0]["message"]["content"] not in options


def test_yes_probability_reads_vllms_first_token_logprobs(client: LLMClient, wire: WireLog) -> None:
    # The base model echoes its prompt, so a prompt of "yes" puts yes (and no) tokens among the top candidates.
    probability = client.yes_probability([{"role": "user", "content": "yes"}])
    assert 0.0 < probability <= 1.0
    (body,) = wire.chat_bodies()
    assert (body["logprobs"], body["max_tokens"]) == (True, 1) and body["top_logprobs"] >= 1


def test_metrics_expose_vllm_series_for_operators(server: VLLMServer) -> None:
    metrics = httpx.get(f"{server.server_root}/metrics", timeout=10).text
    for series in ("vllm:num_requests_running", "vllm:prompt_tokens", "vllm:e2e_request_latency_seconds"):
        assert series in metrics


def _metric_lines(server: VLLMServer, name: str) -> list[str]:
    text = httpx.get(f"{server.server_root}/metrics", timeout=10).text
    return [line for line in text.splitlines() if line.split("{", 1)[0].split(" ", 1)[0] == name]


def _prefix_cache_counters(server: VLLMServer) -> tuple[float, float]:
    """(queries, hits) of vLLM's prefix cache, in tokens, summed over its label sets."""
    queries = sum(float(line.rsplit(" ", 1)[1]) for line in _metric_lines(server, "vllm:prefix_cache_queries_total"))
    hits = sum(float(line.rsplit(" ", 1)[1]) for line in _metric_lines(server, "vllm:prefix_cache_hits_total"))
    return queries, hits


def _chat_tokens(server: VLLMServer, messages: Any) -> int:
    body = {"model": "gemma-3-270m", "messages": list(messages), "add_generation_prompt": True}
    return len(httpx.post(f"{server.server_root}/tokenize", json=body, timeout=30).json()["tokens"])


def test_a_second_question_about_a_chunk_reads_the_chunk_from_vllms_prefix_cache(
    server: VLLMServer, client: LLMClient
) -> None:
    """Prompts put the fenced chunk first, so the next question about it starts with the same tokens and vLLM
    serves them from its prefix cache (hit rate over the second question's prompt, from vLLM's own /metrics).

    The questions are asked in the LLM stage's order: clauses, then the safety question. The geometry is the test
    model's: Gemma 3 270M attends over a 512-token window in five layers of six, and vLLM lets go of a request's
    blocks once they fall out of that window, so a later request can reuse the chunk only while the blocks from
    the start of the first prompt are still held, i.e. when that prompt ends within the window plus one block.
    The chunk is sized for that; production's Gemma 2 9B attends over 4,096 tokens, past a whole chunk and its
    question, and keeps every block of it."""
    window = int(json.loads((VLLM_MODEL_DIR / "config.json").read_text())["sliding_window"])
    (info,) = _metric_lines(server, "vllm:cache_config_info")
    block = int(info.split('block_size="', 1)[1].split('"', 1)[0])
    labels = tuple(load_pack().clauses)
    values = clause_prompt_values(labels)

    def clause_prompt(text: str, note: str = "") -> list[dict[str, str]]:
        (message,) = prompt_render("clause_extraction", text, **values).messages
        return [{"role": "user", "content": message["content"] + note}]

    # The longest clause prompt whose retry (the same prompt and a note) still ends within the window plus a block.
    note_tokens = _chat_tokens(server, clause_prompt("合同", RETRY_NOTE)) - _chat_tokens(server, clause_prompt("合同"))
    longest = window + block - 1 - note_tokens
    source = synthetic_contract(4000)
    low, high = 0, len(source)  # the longest prefix of the contract whose clause prompt fits (binary search)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (
            (middle, high) if _chat_tokens(server, clause_prompt(source[:middle])) <= longest else (low, middle - 1)
        )
    text = source[:low]
    clause_tokens = _chat_tokens(server, clause_prompt(text))
    safety_tokens = _chat_tokens(server, prompt_render("safety_check", text).messages)
    assert window < clause_tokens <= longest, (window, clause_tokens, longest)

    clauses_extract(client, text, labels, max_output_tokens=32)  # the first question on the chunk fills the cache
    queries, hits = _prefix_cache_counters(server)
    with contextlib.suppress(LLMInvalidOutput):  # the base model may answer neither yes nor no: still read
        safety_risk(client, text, 1)
    after_queries, after_hits = _prefix_cache_counters(server)
    asked = after_queries - queries
    assert asked == safety_tokens, "the safety question is one request over one chunk"
    rate = (after_hits - hits) / asked
    print(f"vLLM prefix-cache hit rate on the second question: {rate:.3f} of {asked:.0f} prompt tokens")
    assert rate >= 0.5


def test_breaker_opens_when_vllm_stops_and_closes_after_it_returns(server: VLLMServer) -> None:
    """Last in the module: it stops the shared server and starts it again (a vLLM start costs about a minute)."""
    config = LLMConfig(
        base_url=server.base_url,
        engine="vllm",
        connect_timeout_s=0.5,
        read_timeout_s=60,
        max_retries=1,
        backoff_base_s=0.05,
        breaker_failure_threshold=2,
        breaker_cooldown_s=1.0,
        context_window_tokens=CONTEXT,
        max_output_tokens=8,
    )
    with LLMClient(config) as client:
        assert_breaker_opens_and_recovers(client, server)
