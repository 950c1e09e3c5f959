"""An organisation's adapter is asked by name and the base model answers while the server does not have it: the
404 branch against a real local HTTP server (the vLLM test shows it against vLLM itself), remembered for a while."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference.adapter_train import IGNORE, label_mask, pairs_read, token_batches
from inference.adapters import AdapterMemory, model_for, model_unknown
from inference.client import LLMClient
from inference.config import LLMConfig
from inference.errors import LLMRequestError
from tests.inference.fake_server import Scripted, completion, scripted_server

NOT_SERVED = Scripted(404, {"object": "error", "message": "The model `acme-adapter-1` does not exist.",
                            "type": "NotFoundError", "code": 404})  # fmt: skip
MESSAGES = [{"role": "user", "content": "你好"}]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_model_the_server_lacks_is_asked_again_only_after_the_ttl() -> None:
    clock = Clock()
    memory = AdapterMemory(60.0, clock=clock)
    assert model_for("base", "acme-adapter-1", memory) == "acme-adapter-1"
    memory.unknown_mark("acme-adapter-1")
    assert model_for("base", "acme-adapter-1", memory) == "base"
    assert model_for("base", None, memory) == "base"
    clock.now = 61.0
    assert model_for("base", "acme-adapter-1", memory) == "acme-adapter-1"


@pytest.mark.parametrize(
    ("status", "body", "unknown"),
    [(404, "The model `x` does not exist.", True), (400, '{"message": "model x not found"}', True),
     (400, "response_format: schema invalid", False), (422, "The model `x` does not exist.", False)],
    ids=["vllm-404", "400-naming-the-model", "400-schema", "422"],
)  # fmt: skip
def test_only_an_unknown_model_answer_counts_as_a_missing_adapter(status: int, body: str, unknown: bool) -> None:
    assert model_unknown(LLMRequestError(status, body)) is unknown


def test_the_base_model_answers_for_an_adapter_the_server_does_not_have() -> None:
    with scripted_server(NOT_SERVED, completion("基座"), completion("又是基座")) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, model="gemma-3-270m", engine="vllm", max_retries=0))
        adapted = client.for_adapter("acme-adapter-1")
        assert adapted.chat(MESSAGES, max_tokens=8).content == "基座"
        assert adapted.model == "gemma-3-270m"  # remembered: the next question goes straight to the base model
        assert adapted.chat(MESSAGES, max_tokens=8).content == "又是基座"
        assert [body["model"] for body in server.chat_bodies()] == ["acme-adapter-1", "gemma-3-270m", "gemma-3-270m"]
        assert client.model == "gemma-3-270m" and client.adapter is None  # the view leaves the client as it was
        assert client.stats().requests == adapted.stats().requests == 3  # one set of counters, one breaker


def test_an_adapter_the_server_has_is_named_in_the_request() -> None:
    with scripted_server(completion("适配器")) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, engine="vllm", max_retries=0))
        assert client.for_adapter("acme-adapter-1").chat(MESSAGES, max_tokens=8).content == "适配器"
        assert server.chat_bodies()[0]["model"] == "acme-adapter-1"


def test_another_refusal_of_an_adapter_request_is_not_hidden_by_the_fallback() -> None:
    with scripted_server(Scripted(400, {"message": "max_tokens is too large"})) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, engine="vllm", max_retries=0))
        with pytest.raises(LLMRequestError):
            client.for_adapter("acme-adapter-1").chat(MESSAGES, max_tokens=8)
        assert client.adapters.usable("acme-adapter-1")


def test_only_the_answer_is_learned() -> None:
    assert label_mask([5, 6, 7], [5, 6, 7, 8, 9]) == [IGNORE, IGNORE, IGNORE, 8, 9]
    with pytest.raises(ValueError, match="prefix"):
        label_mask([5, 6, 7], [5, 7, 6, 8])
    with pytest.raises(ValueError, match="no answer"):
        label_mask([5, 6], [5, 6])


def test_pairs_are_packed_within_the_token_budget() -> None:
    assert token_batches([100, 300, 200, 900, 50], 600) == [[0, 1], [2], [3], [4]]  # 900 goes alone
    assert token_batches([100, 100, 100], 600) == [[0, 1, 2]]


def test_a_pair_with_a_system_turn_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"messages": [{"role": "system", "content": "x"}, {"role": "user", "content": "q"}, '
                    '{"role": "assistant", "content": "a"}]}\n', encoding="utf-8")  # fmt: skip
    with pytest.raises(ValueError, match="no system turn"):
        pairs_read(path)
    path.write_text('{"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}\n')
    assert pairs_read(path) == [([{"role": "user", "content": "q"}], "a")]
