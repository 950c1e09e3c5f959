"""Evaluation of the normalizer: metric helpers, and the targets on the shared data (read at run time)."""

from __future__ import annotations

import pytest

from rules.evaluation.common import jsonl_rows
from rules.evaluation.dialect import (
    chrf,
    corpus_cer,
    dialect_drift,
    edit_distance,
    evaluate_dialect,
    mandarin_change_rate,
)
from rules.evaluation.dialect_words import aligned, word_accuracy
from rules.evaluation.script import evaluate_script
from rules.normalize import normalize
from tests.shared_data import shared_file


@pytest.mark.parametrize(
    ("source", "target", "distance"),
    [
        ("", "", 0),
        ("合同", "", 2),
        ("", "合同", 2),
        ("租赁合同", "租凭合同", 1),
        ("他在找什么", "你在找些什么", 2),
    ],
    ids=["empty", "delete-all", "insert-all", "substitute", "mixed"],
)
def test_edit_distance(source: str, target: str, distance: int) -> None:
    assert edit_distance(source, target) == distance


def test_corpus_cer_weights_by_reference_length() -> None:
    assert corpus_cer(["甲", "乙方丙"], ["甲", "乙方丁"]) == pytest.approx(1 / 4)


def test_chrf_bounds() -> None:
    assert chrf(["他在找什么"], ["他在找什么"]) == pytest.approx(100.0)
    assert chrf(["甲乙丙"], ["丁戊己"]) == 0.0
    assert 0 < chrf(["他在找东西"], ["他在找什么"]) < 100


def test_script_exact_match_target() -> None:
    result = evaluate_script(jsonl_rows(shared_file("normalize/opencc_to_simplified.jsonl")))
    assert result["n"] == sum(result["per_config"][c]["n"] for c in ("t2s", "hk2s", "tw2s"))
    assert "tw2sp" in result["per_config"]
    assert result["exact_match"] >= 0.90


def test_dialect_beats_opencc_alone() -> None:
    result = evaluate_dialect(jsonl_rows(shared_file("dialect/public.jsonl")))
    assert result["n"] == 650
    assert result["cer"] <= 0.65
    assert result["cer"] < result["baseline_cer"]
    assert result["chrf"] > result["baseline_chrf"]
    assert result["word_accuracy"] >= 0.86
    assert result["word_occurrences"] >= 800


def test_word_accuracy_scores_each_occurrence_by_what_it_became() -> None:
    rewritten = word_accuracy(["我喺深圳，唔想返工。"])  # 喺 → 在, 唔 → 不
    assert (rewritten["word_accuracy"], rewritten["word_occurrences"]) == (1.0, 2)
    quoted = word_accuracy(["合同约定，乙方以“佢哋唔喺度”为字号经营。"])  # a quotation in Mandarin stays
    assert (quoted["word_accuracy"], quoted["word_occurrences"]) == (0.0, 2)
    assert word_accuracy(["系统正常。"])["word_occurrences"] == 0


def test_a_rewrite_without_a_map_is_scored_through_its_alignment() -> None:
    # what a model makes of the rules' output maps back to the source through the alignment and the rules' map
    source = "我喺深圳，唔想返工。"
    rules = normalize(source)
    better = aligned(rules, "我在深圳，不想去上班。")
    assert better.text == "我在深圳，不想去上班。"
    assert better.to_original(0, 1) == (0, 1) and better.to_original(1, 2) == (1, 2)  # 在 from 喺
    assert better.to_original(len(better.text) - 1, len(better.text)) == (len(source) - 1, len(source))
    assert word_accuracy([source], rewrite=lambda text: better)["word_accuracy"] == 1.0
    undone = aligned(rules, "我喺深圳，唔想上班。")  # a model that put the Cantonese back
    assert word_accuracy([source], rewrite=lambda text: undone)["word_accuracy"] == 0.0


def test_dialect_step_leaves_mandarin_tickets_and_contracts_alone() -> None:
    for relative in ("tickets/public.jsonl", "train/contracts_unlabeled.jsonl"):
        drift = dialect_drift(row["text"] for row in jsonl_rows(shared_file(relative)))
        assert drift["characters"] > 700_000
        assert drift["rate"] <= 0.001, drift["top_changes"]


def test_mandarin_tickets_are_left_alone() -> None:
    texts = [row["text"] for row in jsonl_rows(shared_file("tickets/public.jsonl"))]
    assert len(texts) == 1842
    assert mandarin_change_rate(texts) <= 0.005
