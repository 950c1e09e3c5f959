"""Against a real llama.cpp server with Gemma 3 270M: protocol, schema validity, grounding, chunking by the
server's tokenizer, and the breaker when the server dies and comes back. The model is a base model that echoes,
so nothing here asserts that its answers are right."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import httpx
import pytest

from inference.answers import LLMFinding, LLMTaskResult, TaskRun
from inference.chunking import TEMPLATE_MARGIN_TOKENS, text_chunks
from inference.client import RETRY_NOTE, LLMClient
from inference.config import LLMConfig
from inference.errors import LLMUnavailable
from inference.grounding import ground
from inference.prompts import prompt_render
from inference.questions import (
    cantonese_rewrite,
    clauses_extract,
    document_budget,
    response_draft,
    rewrite_keeps_the_text,
    ticket_classify,
)
from inference.schemas import clause_extraction_model
from rules.clauses.pack import load_pack
from rules.tickets.taxonomy import load_taxonomy
from tests.llm_server import LocalLLMServer, local_llm_server

pytestmark = pytest.mark.llm
CONTEXT = 2048
MAX_OUT = 96
CONTRACT = (
    "第一条 保密\n双方应对合作中知悉的商业秘密承担保密义务。\n"
    "第二条 违约责任\n任何一方违约的，应向守约方支付合同总额百分之二十的违约金。\n"
    "第三条 争议解决\n因本合同引起的争议，提交甲方所在地人民法院诉讼解决。\n"
)
CANTONESE = "佢哋喺度搞咗好耐，點解仲未整好？"
TICKET = "我家小区楼下的路灯坏了一个多月了，晚上很黑，老人容易摔倒，希望尽快修好。"
ARTICLE_TOPICS = [
    ("合同标的", "乙方向甲方提供{n}号项目所需的设备、安装及调试服务，规格见附件{n}。"),
    ("价款与支付", "合同总价为人民币{n}万元整；甲方应于验收合格后{n}日内支付至乙方指定账户。"),
    ("交付与验收", "乙方应在第{n}周内完成交付；甲方收到货物后十个工作日内组织验收，逾期未提出异议的视为验收合格。"),
    ("保密", "双方对在履行第{n}号订单过程中知悉的对方商业秘密负有保密义务，保密期限为合同终止后{n}年。"),
    ("违约责任", "任何一方违反本合同约定的，应向守约方支付违约金，每逾期一日按未履行部分的千分之{n}计算。"),
    ("不可抗力", "因地震、台风、洪水等不可抗力导致不能履行的，受影响方应在{n}日内书面通知对方并提供证明。"),
    ("争议解决", "因本合同引起的争议，双方协商不成的，提交第{n}仲裁委员会按其规则仲裁。"),
    ("通知与送达", "本合同项下的通知应以书面形式送达第{n}条所列地址；拒收或无法送达的，自寄出之日起第{n}日视为送达。"),
]


def synthetic_contract(min_chars: int) -> str:
    """A long contract of numbered, varied articles, each with a unique reference number."""
    articles: list[str] = []
    n = 0
    while sum(len(a) for a in articles) < min_chars:
        n += 1
        title, body = ARTICLE_TOPICS[n % len(ARTICLE_TOPICS)]
        articles.append(f"第{n}条 {title}\n{body.format(n=n)}本条编号为DG-{n:05d}。\n\n")
    return "".join(articles)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalLLMServer]:
    with local_llm_server(n_ctx=CONTEXT) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: LocalLLMServer) -> Iterator[LLMClient]:
    config = LLMConfig(
        base_url=server.base_url, context_window_tokens=CONTEXT, max_output_tokens=MAX_OUT, read_timeout_s=120
    )
    with LLMClient(config) as llm_client:
        yield llm_client


def assert_grounded(findings: tuple[LLMFinding, ...], text: str) -> None:
    for finding in findings:
        assert text[finding.start : finding.end] == finding.quote


def test_token_counts_come_from_the_servers_tokenizer(server: LocalLLMServer, client: LLMClient) -> None:
    text = "第一条 甲方应当支付违约金。"
    tokens = httpx.post(f"{client.config.server_root}/extras/tokenize", json={"input": text}).json()["tokens"]
    assert client.count_tokens(text) == len(tokens) > 1


def test_llamacpp_rejects_json_schema_so_the_client_sends_json_object(client: LLMClient) -> None:
    body = {
        "model": client.config.model,
        "messages": [{"role": "user", "content": "hi"}],
        "max_tokens": 4,
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}},
    }
    assert httpx.post(f"{client.config.base_url}/chat/completions", json=body, timeout=60).status_code == 500


def test_ticket_classification_reply_validates_against_the_live_schema(client: LLMClient) -> None:
    result = ticket_classify(client, TICKET, load_taxonomy())
    assert (result.calls, result.invalid_outputs) == (1, 0)
    assert result.prompt_tokens > 0 and result.llm_latency_ms > 0
    assert_grounded(result.findings, TICKET)
    assert (result.model, result.engine, result.prompt_version) == (
        "gemma-3-270m",
        "llamacpp",
        "ticket_classification.v2",
    )


def said_in(client: LLMClient, task: Callable[[], LLMTaskResult]) -> tuple[LLMTaskResult, list[Any]]:
    """Run `task` and return its result with what the model said in each reply that validated (before grounding)."""
    said: list[Any] = []
    chat_structured = client.chat_structured

    def recording(*args: Any, **kwargs: Any) -> Any:
        reply = chat_structured(*args, **kwargs)
        said.append(reply.parsed)
        return reply

    with mock.patch.object(client, "chat_structured", recording):
        return task(), said


def assert_only_grounded_kept(result: LLMTaskResult, quotes: list[tuple[str, str]], text: str) -> None:
    """Of the model's (label, quote) pairs, those not in `text` were counted as dropped, and the findings kept are
    the others, pointing at their words."""
    spans = [(label, ground(quote, text)) for label, quote in quotes]
    grounded = {(label, span) for label, span in spans if span is not None}
    assert result.dropped_ungrounded == sum(span is None for _, span in spans)
    assert {(f.label, (f.start, f.end)) for f in result.findings} <= grounded
    assert bool(result.findings) == bool(grounded)
    assert_grounded(result.findings, text)


def test_every_other_task_is_accepted_and_keeps_only_grounded_findings(client: LLMClient) -> None:
    labels = list(load_pack().clauses)
    summary = "已识别条款：保密、违约责任；缺少：不可抗力"
    clauses, clauses_said = said_in(client, lambda: clauses_extract(client, CONTRACT, labels))
    rewrite, rewrite_said = said_in(client, lambda: cantonese_rewrite(client, CANTONESE))
    draft, draft_said = said_in(client, lambda: response_draft(client, "contract", CONTRACT, summary))
    for result, said, prompt_version in (
        (clauses, clauses_said, "clause_extraction.v2"),
        (rewrite, rewrite_said, "cantonese_rewrite.v2"),
        (draft, draft_said, "response_draft_contract.v2"),
    ):
        # Each text fits one chunk, so each task is one question the server accepted: one reply, valid or invalid.
        assert (result.model, result.engine, result.prompt_version) == ("gemma-3-270m", "llamacpp", prompt_version)
        assert (result.chunks, result.calls, result.truncated) == (1, 1, False)
        assert result.invalid_outputs == 1 - len(said)
        assert result.wall_ms >= result.llm_latency_ms > 0
    # Whatever the base model quoted, made-up quotes were counted and the rest kept (the model is not judged).
    clause_quotes = [(item.label, item.evidence) for reply in clauses_said for item in reply.findings]
    assert_only_grounded_kept(clauses, clause_quotes, CONTRACT)
    draft_quotes = [("contract", quote) for reply in draft_said for quote in reply.evidence]
    assert_only_grounded_kept(draft, draft_quotes, CONTRACT)
    # The rewrite is the model's words, or the text as it was when its reply was invalid or no rewrite of it (empty,
    # out of proportion, unrelated: counted as dropped); a draft likewise or none.
    words = rewrite_said[0].rewritten.strip() if rewrite_said else ""
    kept = bool(rewrite_said) and rewrite_keeps_the_text(CANTONESE, words)
    assert rewrite.output_text == (words if kept else CANTONESE)
    assert rewrite.dropped_ungrounded == int(bool(rewrite_said) and not kept)
    assert draft.output_text == (draft_said[0].draft if draft_said else None)


def test_choice_and_yes_probability_work_on_llamacpp(client: LLMClient) -> None:
    assert client.choice([{"role": "user", "content": "allow, review or block?"}], ["allow", "review", "block"]) in {
        "allow",
        "review",
        "block",
    }
    # The base model echoes its prompt, so a prompt of "yes" makes a yes token likely at the first position.
    probability = client.yes_probability([{"role": "user", "content": "yes"}])
    assert 0.0 <= probability <= 1.0


def assert_absent_quote_dropped(client: LLMClient, max_tokens: int) -> None:
    """A quote the model did not find in the contract is dropped and counted; the real ones point at real text."""
    labels = list(load_pack().clauses)
    prompt = prompt_render("clause_extraction", CONTRACT, labels="\n".join(labels))
    reply = client.chat_structured(prompt.messages, clause_extraction_model(tuple(labels)), max_tokens=max_tokens)
    run = TaskRun(client, "clauses_extract", prompt.prompt_version)
    quotes = [item.evidence for item in reply.parsed.findings] + ["本合同约定甲方无需承担任何责任"]
    spans = [run.span_ground(quote, CONTRACT) for quote in quotes]
    assert spans[-1] is None
    assert run.dropped_ungrounded == sum(span is None for span in spans) >= 1
    assert all(CONTRACT[s[0] : s[1]].strip() for s in spans if s is not None)


def test_a_quote_absent_from_the_text_is_dropped_and_counted(client: LLMClient) -> None:
    assert_absent_quote_dropped(client, MAX_OUT)


def test_a_60000_character_contract_chunks_to_fit_the_real_context_window(client: LLMClient) -> None:
    text = synthetic_contract(60_000)
    labels = "\n".join(f"- {label}" for label in load_pack().clauses)
    budget = document_budget(client, "clause_extraction", MAX_OUT, labels=labels)
    chunks = text_chunks(text, budget, client.count_tokens)
    assert len(text) >= 60_000 and len(chunks) > 5
    retry_note = client.count_tokens(RETRY_NOTE)
    cursor = 0
    for chunk in chunks:
        assert text[chunk.offset : chunk.end] == chunk.text and not text[cursor : chunk.offset].strip()
        cursor = chunk.end
        assert client.count_tokens(chunk.text) == chunk.tokens <= budget
        prompt_tokens = client.count_tokens(prompt_render("clause_extraction", chunk.text, labels=labels).text)
        assert prompt_tokens + retry_note + TEMPLATE_MARGIN_TOKENS + MAX_OUT <= CONTEXT
        assert chunk.text.lstrip().startswith("第"), "chunks start at article headings"
    assert not text[cursor:].strip()
    # The largest chunk, sent for real: the server's own count (chat template included) leaves room for the reply.
    largest = max(chunks, key=lambda chunk: chunk.tokens)
    reply = client.chat(prompt_render("clause_extraction", largest.text, labels=labels).messages, max_tokens=MAX_OUT)
    assert reply.usage.prompt_tokens + retry_note + MAX_OUT <= CONTEXT
    # A span found in a late chunk points at the same text in the full contract.
    late = chunks[-2]
    marker = late.text[late.text.index("DG-") : late.text.index("DG-") + 8]
    start, end = late.span_in_full_text(late.text.index(marker), late.text.index(marker) + len(marker))
    assert text[start:end] == marker and text.index(marker) == start


def assert_breaker_opens_and_recovers(client: LLMClient, server: Any) -> None:
    """Stop the server: the breaker opens and fails fast; restart it: after the cool-down one trial call closes it."""
    assert client.count_tokens("服务正常") > 0
    server.stop()
    with pytest.raises(LLMUnavailable, match="connection error"):
        client.chat([{"role": "user", "content": "你好"}], max_tokens=4)
    assert client.breaker.state == "open"
    attempts_before = client.stats().http_attempts
    started = time.perf_counter()
    with pytest.raises(LLMUnavailable, match="circuit breaker is open"):
        client.chat([{"role": "user", "content": "你好"}], max_tokens=4)
    assert time.perf_counter() - started < 0.05
    assert client.stats().http_attempts == attempts_before, "an open breaker makes no network call"
    server.start()
    time.sleep(client.config.breaker_cooldown_s)
    assert client.breaker.state == "half_open"
    assert client.chat([{"role": "user", "content": "你好"}], max_tokens=4).attempts == 1
    snapshot = client.breaker.snapshot()
    assert (snapshot.state, snapshot.openings) == ("closed", 1)


def test_breaker_opens_when_the_server_dies_and_closes_after_it_returns() -> None:
    with local_llm_server(n_ctx=512) as server:
        config = LLMConfig(
            base_url=server.base_url,
            connect_timeout_s=0.5,
            read_timeout_s=30,
            max_retries=1,
            backoff_base_s=0.05,
            breaker_failure_threshold=2,
            breaker_cooldown_s=1.0,
            context_window_tokens=512,
            max_output_tokens=8,
        )
        assert_breaker_opens_and_recovers(LLMClient(config), server)
