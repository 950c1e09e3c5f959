"""The clause heading model: weak labels from article titles, a reproducible calibrated model, and the rule by
which it joins the patterns (no Django, no database)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rules.clauses import clause_matches, load_pack
from rules.clauses.heading_model import (
    OTHER,
    ClauseModel,
    ClauseModelError,
    title_labels,
    train_clause_model,
    weak_examples,
)
from rules.clauses.matcher import MODEL_ALONE, MODEL_WITH_PATTERN
from rules.evaluation.clauses import evaluate_clauses, headings_masked
from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file

CONTRACT = (
    "第一条 付款方式\n买方应于收到发票后十五日内将货款汇入卖方指定账户。\n"
    "第二条 违约责任\n任何一方违反本合同约定的，应向对方支付违约金。\n"
    "第三条 其他约定\n本合同一式两份，双方各执一份。\n"
    "第四条\n乙方交付的设备经甲方检验合格后，双方签署书面确认单。\n"
)


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    """Sixty of the unlabelled contracts (training corpus; never shipped)."""
    return [row["text"] for row in jsonl_rows(shared_file("train/contracts_unlabeled.jsonl"))][:60]


@pytest.fixture(scope="module")
def model(corpus: list[str]) -> ClauseModel:
    return train_clause_model(corpus, seed=0)


def test_titles_map_onto_clause_types_and_bodies_lose_their_heading() -> None:
    assert title_labels("违约责任") == {"违约金/违约责任"}
    assert title_labels("其他约定") == set()
    examples = weak_examples([CONTRACT])
    by_label = {example.label: example.text for example in examples}
    assert by_label["违约金/违约责任"].startswith("任何一方违反") and "违约责任\n" not in by_label["违约金/违约责任"]
    assert by_label[OTHER].startswith("本合同一式两份")
    assert all(example.document == 0 for example in examples)
    assert len(examples) == 3, "the article without a title gives no example"


def test_training_twice_with_the_same_seed_gives_identical_weights(corpus: list[str], model: ClauseModel) -> None:
    again = train_clause_model(corpus, seed=0)
    assert again.labels == model.labels and OTHER in model.labels
    for name, array in model.arrays().items():
        np.testing.assert_array_equal(again.arrays()[name], array, err_msg=name)


def test_a_saved_model_loads_back_predicts_the_same_and_an_altered_one_is_refused(
    model: ClauseModel, tmp_path: Path
) -> None:
    body = "因地震、台风、水灾等不能预见、不能避免并不能克服的客观情况致使合同不能履行的，受影响方不承担责任。"
    directory = model.save(tmp_path / "model")
    loaded = ClauseModel.load(directory)
    assert loaded.probabilities(body) == pytest.approx(model.probabilities(body), abs=1e-6)
    assert sum(loaded.probabilities(body).values()) == pytest.approx(1.0)
    altered = tmp_path / "altered"
    shutil.copytree(directory, altered)
    metadata = json.loads((altered / "metadata.json").read_text())
    (altered / "metadata.json").write_text(json.dumps({**metadata, "weights_sha256": "0" * 64}))
    with pytest.raises(ClauseModelError):
        ClauseModel.load(altered)
    with pytest.raises(ClauseModelError):
        ClauseModel.load(tmp_path / "missing")


def test_too_few_headed_articles_cannot_train_a_model() -> None:
    with pytest.raises(ClauseModelError):
        train_clause_model([CONTRACT])


class _FixedModel:
    """A classifier with fixed answers, to test the combination rule on its own."""

    def __init__(self, answers: dict[str, float]) -> None:
        self.answers = answers
        self.labels = (*answers, OTHER)
        self.asked: list[str] = []

    def probabilities(self, body: str) -> dict[str, float]:
        self.asked.append(body)
        return {**self.answers, OTHER: max(0.0, 1 - sum(self.answers.values()))}


def test_the_model_is_asked_only_about_articles_without_an_informative_heading() -> None:
    fixed = _FixedModel({"验收": MODEL_ALONE})
    findings = clause_matches(CONTRACT, model=fixed)
    assert len(fixed.asked) == 2, "第三条 其他约定 and the untitled 第四条; titled types are the pack's"
    added = [f for f in findings if f.rule_id.startswith("clause.model.")]
    assert [(f.label, CONTRACT[f.start : f.start + 3]) for f in added] == [("验收", "第三条"), ("验收", "第四条")]
    assert all(f.confidence < MODEL_ALONE for f in added), "a model finding never outranks an equal rule finding"


def test_a_doubtful_model_needs_a_pattern_in_the_article() -> None:
    doubtful = (MODEL_WITH_PATTERN + MODEL_ALONE) / 2
    # 诉讼 is a pattern of 争议解决, here in a sentence the rules' own conditions do not take as the clause.
    with_pattern = "第一条\n本条所称诉讼费用，指案件受理费及律师费。\n"
    without = "第一条\n本条所称费用，指案件受理费及律师费。\n"
    assert any(
        f.rule_id == "clause.model.争议解决"
        for f in clause_matches(with_pattern, model=_FixedModel({"争议解决": doubtful}))
    )
    assert not any(
        f.rule_id.startswith("clause.model.")
        for f in clause_matches(without, model=_FixedModel({"争议解决": doubtful}))
    )


def test_masking_blanks_titles_and_keeps_offsets() -> None:
    masked = headings_masked(CONTRACT)
    assert len(masked) == len(CONTRACT) and "违约责任\n" not in masked and "第二条" in masked
    assert masked.index("任何一方") == CONTRACT.index("任何一方")


def test_with_headings_masked_the_rules_and_a_heading_model_still_find_the_public_clauses(model: ClauseModel) -> None:
    rows = list(jsonl_rows(shared_file("contracts/public.jsonl")))
    masked = evaluate_clauses(rows, model=model, mask=True)
    assert masked["masked_headings"] is True
    assert masked["micro_f1"] >= 0.85, masked
    assert set(load_pack().clauses) >= set(model.labels) - {OTHER}
