"""vLLM serves an organisation's LoRA adapter over the base model (`make test-vllm`): the adapter setup.sh trained
once with DocGate's own training module (six tickets in the LLM stage's prompt format, its loss and cost kept in
training.json) is served with `--enable-lora --lora-modules`; a request naming it is answered by it (on a trained
prompt it differs from the base model and is closer to the trained answer); an adapter vLLM does not have falls back
to the base model; and `manage.py train_adapter` runs to its end against this server: pairs from reviewed tickets,
training, the adapter loaded at run time, the bounded judge on the held-back slice, the verdict recorded."""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Iterator
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.core.management import call_command

from inference.client import LLMClient
from inference.config import LLMConfig
from inference.local_server import MODEL_ALIAS, REPO_ROOT
from tests.vllm.adapter_pairs import pairs
from tests.vllm_server import VLLM_MODEL_DIR, VLLM_VENV, VLLMServer, vllm_lora_args, vllm_server, vllm_server_require

pytestmark = pytest.mark.llm
ADAPTER_DIR = Path(os.environ.get("DOCGATE_VLLM_ADAPTER_DIR") or REPO_ROOT / "var" / "vllm-adapter")
ADAPTER = "acme-test-adapter"
CONTEXT = 2048
REPLY_TOKENS = 48
PROMPTS = 2  # each a ~1,150-token ticket prompt answered twice (base, adapter): ~35 s a prompt on a 2-core CPU


def _training() -> dict[str, Any]:
    vllm_server_require()
    path = ADAPTER_DIR / "training.json"
    if not (ADAPTER_DIR / ".docgate-trained").is_file():
        pytest.fail(f"{ADAPTER_DIR} not trained: run `bash tests/vllm/setup.sh`")
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture(scope="module")
def server() -> Iterator[VLLMServer]:
    _training()
    lora = vllm_lora_args({ADAPTER: ADAPTER_DIR}, max_rank=64)
    with vllm_server(max_model_len=CONTEXT, extra_args=lora,
                     extra_env={"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}) as running:  # fmt: skip
        yield running


@pytest.fixture
def client(server: VLLMServer) -> Iterator[LLMClient]:
    with LLMClient(LLMConfig(base_url=server.base_url, model=MODEL_ALIAS, engine="vllm", read_timeout_s=240,
                             context_window_tokens=CONTEXT, max_output_tokens=256)) as made:  # fmt: skip
        yield made


def test_training_loss_falls() -> None:
    training = _training()
    print("adapter training:", json.dumps(training))
    assert training["method"] == "lora" and training["rank"] == 64
    assert training["target_modules"] == ["q_proj", "k_proj", "v_proj", "o_proj"]
    assert training["loss_after"] < training["loss_before"] / 2
    assert training["wall_s"] > 0 and training["peak_rss_mib"] > 0


def test_vllm_serves_the_base_model_and_the_adapter(server: VLLMServer) -> None:
    served = {model["id"] for model in httpx.get(f"{server.base_url}/models", timeout=10).json()["data"]}
    assert {MODEL_ALIAS, ADAPTER} <= served


def test_a_request_naming_the_adapter_is_answered_by_it(client: LLMClient) -> None:
    base_scores, adapter_scores = [], []
    for line in pairs()[:PROMPTS]:
        prompt, answer = line["messages"][:-1], line["messages"][-1]["content"]
        base = client.chat(prompt, max_tokens=REPLY_TOKENS).content
        adapted = client.for_adapter(ADAPTER).chat(prompt, max_tokens=REPLY_TOKENS).content
        assert adapted != base
        base_scores.append(SequenceMatcher(None, base, answer[: len(base)]).ratio())
        adapter_scores.append(SequenceMatcher(None, adapted, answer[: len(adapted)]).ratio())
    print(f"similarity to the trained answer: base {base_scores}, adapter {adapter_scores}")
    assert sum(adapter_scores) / PROMPTS > sum(base_scores) / PROMPTS + 0.3


def test_an_adapter_vllm_does_not_have_falls_back_to_the_base_model(client: LLMClient) -> None:
    prompt = [{"role": "user", "content": "用一句话介绍 12345 热线。"}]
    base = client.chat(prompt, max_tokens=16).content
    missing = client.for_adapter("acme-no-such-adapter")
    assert missing.chat(prompt, max_tokens=16).content == base
    assert missing.model == MODEL_ALIAS  # remembered: the next question names the base model at once


TICKETS = (  # two of each category: the slice holds one of each back
    ("幸福路的路灯坏了两个星期，晚上一片漆黑，请尽快维修。", ("城乡建设", "城市建设和市政管理", "城市公共设施")),
    ("人民路的井盖丢失多日，行人险些掉下去，请处理。", ("城乡建设", "城市建设和市政管理", "城市公共设施")),
    ("化工厂夜里排放黑烟，气味刺鼻，居民头晕，请查处。", ("环境保护", "环境污染", "大气污染")),
    ("工业园的锅炉冒出浓烟，整条街都是煤烟味，请来看看。", ("环境保护", "环境污染", "大气污染")),
)


@pytest.mark.django_db
def test_train_adapter_runs_to_its_verdict(server: VLLMServer, actors: Any, settings: Any, tmp_path: Path) -> None:
    from contracts.learned.adapter_pairs import NAME
    from contracts.models import AuditEvent, LearnedModelVersion
    from tests.reviewed_documents import ticket_reviewed

    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    settings.LLM_BASE_URL, settings.LLM_ENGINE, settings.LLM_MODEL = server.base_url, "vllm", MODEL_ALIAS
    settings.LLM_CONTEXT_TOKENS, settings.LLM_MAX_OUTPUT_TOKENS, settings.LLM_TIMEOUT_S = CONTEXT, 256, 240
    settings.DOCGATE_ADAPTER_TRAIN_PYTHON = str(VLLM_VENV / "bin" / "python")
    settings.DOCGATE_ADAPTER_TRAIN_BASE_MODEL = str(VLLM_MODEL_DIR)
    settings.DOCGATE_ADAPTER_STEPS, settings.DOCGATE_ADAPTER_LEARNING_RATE = 2, 5e-4  # a run, not a good adapter
    settings.DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS, settings.DOCGATE_ADAPTER_JUDGE_MAX_TOKENS = 2, 64
    # Only the one-per-label rule holds tickets back: with the default share, a ticket's random id could also fall
    # below it (4 % a label), and the slice would hold three.
    settings.DOCGATE_RETRAIN_SLICE_SHARE = 0.0
    for text, path in TICKETS:
        ticket_reviewed(actors, text, path)
    started = time.monotonic()
    call_command("train_adapter", organisation="acme", stdout=io.StringIO())
    wall_s = time.monotonic() - started
    row = LearnedModelVersion.objects.get(name=NAME)
    print(f"train_adapter: {wall_s:.0f} s;", json.dumps({"state": row.state, "reason": row.reason,
                                                         **row.metrics}, ensure_ascii=False))  # fmt: skip
    assert row.state in ("active", "rejected"), row.reason
    metrics = row.metrics
    assert metrics["slice"]["held_back_per_label"] == {"城乡建设": 1, "环境保护": 1} and metrics["slice"]["judged"] == 2
    assert metrics["current"]["tickets"]["n"] == metrics["candidate"]["tickets"]["n"] == 2
    assert metrics["training"]["loss_after"] < metrics["training"]["loss_before"]
    served = {model["id"] for model in httpx.get(f"{server.base_url}/models", timeout=10).json()["data"]}
    assert metrics["served_name"] in served  # loaded at run time from the organisation's folder
    assert AuditEvent.objects.filter(action__in=["model.activated", "model.rejected"]).exists()
    assert (tmp_path / "models" / "acme" / NAME / row.version / "adapter_config.json").is_file()
