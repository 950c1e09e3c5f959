"""`train_safety_model` and `evaluate safety --cv/--leave-out/--extra-safe` on a small corpus, as operators run them."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from rules.evaluation.common import jsonl_rows
from rules.safety.model import SafetyModel
from tests.shared_data import SAFETY_TRAIN_KINDS, safety_train_sample, shared_file


def _run(command: str, *args: str, **options: Any) -> dict[str, Any]:
    out, err = StringIO(), StringIO()
    call_command(command, *args, stdout=out, stderr=err, **options)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, "stdout carries exactly one JSON object"
    return dict(json.loads(lines[0]))


def _write(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A small licensed training file and an evaluation file of three sources, tickets among them."""
    folder = tmp_path_factory.mktemp("safety")
    picked = safety_train_sample(40, SAFETY_TRAIN_KINDS[:5])
    public = list(jsonl_rows(shared_file("safety/public.jsonl")))
    evaluation = []
    for source in ("jade-v2-easy", "cvalues", "tickets"):
        evaluation += [row for row in public if row["source"] == source][:30]
    evaluated = {row["text"] for row in evaluation}
    tickets = [row for row in jsonl_rows(shared_file("tickets/public.jsonl")) if row["text"] not in evaluated][:50]
    extra = _write(folder / "own.jsonl", [*tickets, {"text": evaluation[-1]["text"]}])
    return {
        "train": _write(folder / "train.jsonl", picked),
        "data": _write(folder / "eval.jsonl", evaluation),
        "extra": extra,
        "folder": str(folder),
    }


def test_training_twice_with_the_command_writes_the_same_weights(corpus: dict[str, str]) -> None:
    first = _run("train_safety_model", data=[corpus["train"], corpus["data"]], out=f"{corpus['folder']}/a")
    second = _run("train_safety_model", data=[corpus["train"], corpus["data"]], out=f"{corpus['folder']}/b")
    assert first["weights_sha256"] == second["weights_sha256"]
    assert first["left_out"] == {"tickets": 30}
    a, b = SafetyModel.load(first["path"]), SafetyModel.load(second["path"])
    np.testing.assert_array_equal(a.label_coef, b.label_coef)
    assert "tickets" not in a.metadata["sources"]


def test_leave_one_source_out_marks_which_figures_are_fits(corpus: dict[str, str]) -> None:
    report = _run("evaluate", "safety", data=corpus["data"], train=corpus["train"], leave_out="jade-v2-easy")
    assert report["model"]["mode"] == "leave_out"
    assert "jade-v2-easy" not in report["model"]["trained_on_sources"]
    fitted = {source: figures["fitted"] for source, figures in report["per_source"].items()}
    assert fitted == {"jade-v2-easy": False, "tickets": False, "cvalues": True}


def test_cross_validation_scores_every_row_once_with_a_model_per_fold(corpus: dict[str, str]) -> None:
    report = _run("evaluate", "safety", data=corpus["data"], train=corpus["train"], cv=2)
    assert report["n"] == 90
    assert len(report["model"]["versions"]) == 2
    assert report["sweep"]["ticket"] and report["sweep"]["text"]


def test_extra_safe_texts_that_are_evaluation_rows_are_dropped(corpus: dict[str, str]) -> None:
    report = _run(
        "evaluate",
        "safety",
        data=corpus["data"],
        train=corpus["train"],
        leave_out="cvalues",
        extra_safe=[corpus["extra"]],
    )
    assert report["model"]["extra_safe_used"] == 50
    assert report["model"]["extra_safe_dropped_as_evaluation_rows"] == 1


def test_rules_only_and_clear_refusals(corpus: dict[str, str], tmp_path: Path) -> None:
    report = _run("evaluate", "safety", data=corpus["data"], rules_only=True)
    assert report["model"]["mode"] == "rules_only" and report["sweep"] == {}
    with pytest.raises(CommandError, match="training corpus"):
        _run("evaluate", "safety", data=corpus["data"], leave_out="cvalues")
    with pytest.raises(CommandError, match="no such file"):
        _run("evaluate", "safety", data=corpus["data"], train=str(tmp_path / "absent.jsonl"), cv=2)
    with pytest.raises(CommandError, match="safety task only"):
        _run("evaluate", "script", data=corpus["data"], rules_only=True)
    with pytest.raises(CommandError, match="no such file"):
        _run("train_safety_model", data=[str(tmp_path / "absent.jsonl")], out=str(tmp_path / "m"))
