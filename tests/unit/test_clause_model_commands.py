"""`train_clause_model` and `evaluate clauses --mask-headings --clause-model`: train from unlabelled contracts,
then measure the rules and the model on contracts whose headings are blanked."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rules.clauses.heading_model import ClauseModel
from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file


def _corpus(tmp_path: Path, rows: int) -> Path:
    path = tmp_path / "corpus.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for row in list(jsonl_rows(shared_file("train/contracts_unlabeled.jsonl")))[:rows]:
            out.write(json.dumps({"text": row["text"]}, ensure_ascii=False) + "\n")
    return path


def test_a_model_trained_by_the_command_is_evaluated_with_headings_masked(tmp_path: Path) -> None:
    stdout = io.StringIO()
    call_command("train_clause_model", corpus=[str(_corpus(tmp_path, 60))], out=str(tmp_path / "m"), stdout=stdout,
                 stderr=io.StringIO())  # fmt: skip
    trained = json.loads(stdout.getvalue())
    assert trained["model_version"].startswith("clauses-") and "其他" in trained["labels"]
    assert ClauseModel.load(tmp_path / "m").version == trained["model_version"]
    report = io.StringIO()
    call_command("evaluate", "clauses", data=str(shared_file("contracts/public.jsonl")), mask_headings=True,
                 clause_model=str(tmp_path / "m"), stdout=report, stderr=io.StringIO())  # fmt: skip
    measured = json.loads(report.getvalue())
    assert measured["masked_headings"] is True and measured["heading_model"]["version"] == trained["model_version"]
    assert measured["micro_f1"] >= 0.85


def test_a_corpus_that_cannot_train_is_refused_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="too few titled articles"):
        call_command("train_clause_model", corpus=[str(_corpus(tmp_path, 2))], out=str(tmp_path / "m"),
                     stderr=io.StringIO())  # fmt: skip
    with pytest.raises(CommandError, match="no such file"):
        call_command("train_clause_model", corpus=[str(tmp_path / "missing.jsonl")], out=str(tmp_path / "m"))


def test_the_heading_model_is_cross_validated_over_contracts(tmp_path: Path) -> None:
    report = io.StringIO()
    public = str(shared_file("contracts/public.jsonl"))
    call_command("evaluate", "clauses", data=public, train=str(_corpus(tmp_path, 80)), cv=2, stdout=report,
                 stderr=io.StringIO())  # fmt: skip
    measured = json.loads(report.getvalue())
    assert measured["folds"] == 2 and measured["contracts"] == 80
    assert "其他" in measured["per_label"] and 0.0 < measured["micro_f1"] <= 1.0
    with pytest.raises(CommandError, match="--train"):
        call_command("evaluate", "clauses", data=str(shared_file("contracts/public.jsonl")), cv=2)


def test_unlabelled_contracts_are_checked_against_their_article_headings(tmp_path: Path) -> None:
    report = io.StringIO()
    call_command("evaluate", "clauses", data=str(_corpus(tmp_path, 40)), weak_headings=True, stdout=report,
                 stderr=io.StringIO())  # fmt: skip
    measured = json.loads(report.getvalue())
    assert measured["weak_headings"] is True and measured["documents"] == 40
    assert measured["per_clause"]["付款/结算"]["weak_positives"] > 0
    assert 0.0 < measured["micro"]["weak_recall"] <= 1.0
    with pytest.raises(CommandError, match="clauses task only"):
        call_command("evaluate", "tickets", data=str(shared_file("contracts/public.jsonl")), weak_headings=True)
