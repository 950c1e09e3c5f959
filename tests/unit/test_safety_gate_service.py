"""The gate service: an organisation's own safety model, the shipped one otherwise, and no silent pass without one."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

import rules.safety.model as model_module
from contracts import gate
from contracts.operations.health import readiness
from rules.safety.model import SHIPPED_DIR, load_safety_model
from tests.conftest import Actors
from tests.shared_data import SAFETY_TRAIN_KINDS, safety_train_sample


def _small_corpus(folder: Path) -> tuple[str, str]:
    picked = safety_train_sample(40, SAFETY_TRAIN_KINDS[:4])
    train = folder / "train.jsonl"
    train.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in picked), "utf-8")
    own = folder / "own.txt"
    own.write_text("小区路灯坏了三个月没人修\n楼上漏水请物业处理\n", "utf-8")
    return str(train), str(own)


def test_an_organisation_trains_its_own_model_and_its_documents_use_it(
    actors: Actors, settings: Any, tmp_path: Path
) -> None:
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    train, own = _small_corpus(tmp_path)
    out = StringIO()
    call_command(
        "train_safety_model", data=[train], organisation="acme", extra_safe=[own], stdout=out, stderr=StringIO()
    )
    published = json.loads(out.getvalue())
    assert Path(published["path"]).parent == tmp_path / "models" / "acme" / "safety"
    model = gate.safety_model_for("acme")
    assert model.version == published["model_version"]
    assert model.metadata["sources"]["organisation-safe"]["rows"] == {"safe": 2}
    ticket = gate.gate_decide(text="楼上漏水请物业处理", kind="ticket", organisation="acme")
    assert ticket.model_version == published["model_version"]
    other = gate.gate_decide(text="楼上漏水请物业处理", kind="ticket", organisation="globex")
    assert other.model_version == load_safety_model().version


def test_training_for_an_unknown_organisation_is_refused(db: Any, tmp_path: Path) -> None:
    train, _own = _small_corpus(tmp_path)
    with pytest.raises(CommandError, match="No organisation"):
        call_command("train_safety_model", data=[train], organisation="nobody", stdout=StringIO(), stderr=StringIO())


def test_without_a_usable_model_nothing_passes_unseen_and_readyz_says_so(
    db: Any, settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "model"
    shutil.copytree(SHIPPED_DIR, broken)
    (broken / "weights.npz").write_bytes(b"truncated")
    monkeypatch.setattr(model_module, "SHIPPED_DIR", broken)
    decision = gate.gate_decide(text="请问怎么办理居住证", kind="ticket")
    assert decision.decision == "review"
    assert "safety model unavailable: a person decides" in decision.reasons
    assert decision.model_version is None
    ready, checks = readiness()
    assert checks["safety_model"]["ok"] is False
    assert not ready
