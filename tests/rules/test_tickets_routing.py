"""Routing a dispatcher can act on: calibrated probabilities, ranked alternatives with departments and level-2/3
suggestions, per-category thresholds below which a ticket is for a dispatcher, and the organisation's table."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from rules.evaluation.common import jsonl_rows
from rules.evaluation.tickets import evaluate_tickets
from rules.tickets import TicketClassifier, classify_ticket, load_taxonomy, train_classifier
from rules.tickets.calibration import class_thresholds, expected_calibration_error, sharpness_fit, softmax
from rules.tickets.classifier import ALTERNATIVES, subject_line
from rules.tickets.routing import DepartmentTable, path_suggestions
from tests.shared_data import shared_file

FACTORY = "村旁的化工厂晚上偷偷排放废气，气味刺鼻，河里的鱼大片死亡，请环保局查处"


@pytest.fixture(scope="module")
def board() -> list[dict]:
    return list(jsonl_rows(shared_file("tickets/public.jsonl")))


@pytest.fixture(scope="module")
def trained(board: list[dict]) -> TicketClassifier:
    sample = board[::3]  # every label, enough per label for the five calibration folds
    return train_classifier([r["text"] for r in sample], [r["label"] for r in sample])


def test_trained_model_stores_its_calibration_and_a_threshold_per_category(trained: TicketClassifier) -> None:
    metadata = trained.metadata
    assert metadata["format_version"] == 4 and 0.1 <= metadata["sharpness"] <= 50
    assert set(trained.thresholds) == set(trained.labels)
    assert all(0.0 < t <= 1.0 for t in trained.thresholds.values())
    calibration = metadata["calibration"]
    assert calibration["folds"] == 5 and 0.0 <= calibration["ece"] < 0.1
    # The thresholds were chosen on the cross-validated predictions to reach the target precision there.
    assert calibration["routed_precision"] >= metadata["target_precision"] - 0.01
    assert 0.5 < calibration["routed_share"] < 1.0


def test_prediction_ranks_up_to_three_labels_by_calibrated_probability(trained: TicketClassifier) -> None:
    (prediction,) = trained.predict([FACTORY])
    assert len(prediction.ranked) == ALTERNATIVES
    probabilities = [p for _, p in prediction.ranked]
    assert probabilities == sorted(probabilities, reverse=True) and sum(probabilities) <= 1.0 + 1e-6
    assert prediction.ranked[0] == (prediction.label, prediction.confidence) == ("环境保护", probabilities[0])
    assert prediction.threshold == trained.thresholds["环境保护"]


def test_alternatives_carry_each_categorys_department_and_suggestions(trained: TicketClassifier) -> None:
    result = classify_ticket(FACTORY, trained)
    assert [a.label for a in result.alternatives] == [label for label, _ in trained.predict([FACTORY])[0].ranked]
    best = result.alternatives[0]
    assert best.label == result.label == "环境保护" and best.probability == result.probability
    assert best.department == result.department == load_taxonomy().department("环境保护")
    assert best.level2 and best.level2[0] in {sub.name for sub in load_taxonomy().category("环境保护").level2}
    assert all(a.department for a in result.alternatives)


def test_ticket_below_its_categorys_threshold_is_for_a_dispatcher(trained: TicketClassifier) -> None:
    result = classify_ticket(FACTORY, trained)
    assert result.probability is not None and result.threshold is not None
    assert result.needs_dispatcher is (result.probability < result.threshold)
    strict = {**trained.metadata, "thresholds": {**trained.thresholds, "环境保护": 0.9999}}
    doubtful = classify_ticket(FACTORY, TicketClassifier(trained.pipeline, strict))
    assert doubtful.needs_dispatcher and doubtful.label == "环境保护"  # still classified, but not routed
    lenient = {**trained.metadata, "thresholds": {**trained.thresholds, "环境保护": 0.0}}
    assert not classify_ticket(FACTORY, TicketClassifier(trained.pipeline, lenient)).needs_dispatcher


def test_rules_alone_rank_alternatives_without_probabilities_and_never_hold_a_ticket() -> None:
    result = classify_ticket("小区物业乱收停车费，电梯坏了一个月没人修，业主委员会投诉无果")
    assert result.alternatives[0].label == result.label == "城乡建设"
    assert all(a.probability is None for a in result.alternatives) and not result.needs_dispatcher
    assert "物业服务" in result.alternatives[0].level3


def test_organisation_rows_name_the_department_level2_first_then_level1_then_defaults() -> None:
    taxonomy = load_taxonomy()
    table = DepartmentTable(taxonomy, {("城乡建设", ""): ("区住建局", 3), ("城乡建设", "安全生产"): ("区应急局", 1)})
    assert dataclasses.astuple(table.route("城乡建设", "安全生产")) == ("区应急局", "organisation", 1)
    assert dataclasses.astuple(table.route("城乡建设", "城乡规划")) == ("区住建局", "organisation", 3)
    assert dataclasses.astuple(table.route("环境保护")) == (taxonomy.department("环境保护"), "default", None)
    assert table.route(None).department is None
    routed = classify_ticket("小区物业乱收停车费，电梯坏了一个月没人修，业主委员会投诉无果", departments=table)
    assert (routed.department, routed.department_source, routed.department_version) == ("区住建局", "organisation", 3)


def test_level2_and_level3_suggestions_come_from_the_taxonomy_vocabulary_under_the_level1() -> None:
    level2, level3 = path_suggestions("我家附近的公园管理混乱，园林绿化无人维护", "城乡建设")
    assert level2[0] == "城市建设和市政管理" and {"公园管理", "园林绿化"} <= set(level3)
    assert path_suggestions("我家附近的公园管理混乱", "教育文体") == ((), ())


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("C4县采石场夜间违规爆破尊敬的领导，最近一个月", "C4县采石场夜间违规爆破"),
        ("孩子入园报名难，公办幼儿园的学位到底怎么分配？", "孩子入园报名难"),
        ("B2区小河沟臭气熏天王局长：您好！", "B2区小河沟臭气熏天王"),
    ],
    ids=["salutation", "comma", "title-then-addressee"],
)
def test_subject_line_ends_at_the_salutation_or_first_clause(text: str, subject: str) -> None:
    assert subject_line(text) == subject


def test_class_thresholds_are_the_lowest_confidence_reaching_the_target_precision() -> None:
    predicted = ["A"] * 6 + ["B"] * 2
    confidence = [0.95, 0.9, 0.8, 0.7, 0.6, 0.5, 0.9, 0.8]
    correct = [True, True, True, True, False, False, False, False]
    thresholds = class_thresholds(predicted, confidence, correct, target_precision=0.85)
    assert thresholds["A"] == 0.7  # 4/4 right from 0.7; from 0.6 only 4/5
    assert thresholds["B"] > 0.9  # never right: always a dispatcher


def test_fitted_sharpness_makes_confidence_match_accuracy() -> None:
    rng = np.random.default_rng(0)
    decision = rng.normal(size=(4000, 4))
    truth = softmax(decision, 3.0)  # labels drawn from a softmax three times as sharp as the raw margins
    gold = np.array([rng.choice(4, p=row) for row in truth])
    sharpness = sharpness_fit(decision, gold)
    assert 2.5 < sharpness < 3.5
    fitted = softmax(decision, sharpness)
    correct = fitted.argmax(axis=1) == gold
    assert expected_calibration_error(fitted.max(axis=1), correct) < 0.03
    assert expected_calibration_error(softmax(decision, 0.3).max(axis=1), correct) > 0.2


def test_cross_validation_reports_fold_spread_calibration_and_routing(board: list[dict]) -> None:
    report = evaluate_tickets(board[::8], cv=3, seed=1)
    assert report["folds"] == 3 and report["seed"] == 1 and len(report["fold_macro_f1"]["folds"]) == 3
    spread = report["fold_macro_f1"]
    assert spread["min"] <= spread["mean"] <= spread["max"] and spread["std"] >= 0.0
    routing = report["routing"]
    assert 0.0 <= routing["ece"] <= 1.0 and routing["reliability"]
    assert routing["routed_share"] + routing["dispatcher_share"] <= 1.0 + 1e-6
    assert routing["top3_accuracy"] >= report["accuracy"]
    assert report["training_seconds"]["max"] > 0


def test_learning_curve_trains_on_shares_of_the_same_folds(board: list[dict]) -> None:
    rows = board[::8]
    report = evaluate_tickets(rows, cv=3, seed=1, learning_curve=True)
    curve = report["learning_curve"]
    assert [point["share"] for point in curve] == [0.125, 0.25, 0.5, 1.0]
    sizes = [point["n_train"] for point in curve]
    assert sizes == sorted(sizes) and sizes[-1] == round(len(rows) * 2 / 3)
    # The whole fold is the cross-validation's own figure; an eighth of it (two to five tickets of a label) is
    # far worse.
    assert curve[-1]["macro_f1"] == report["classifier_macro_f1"]
    assert curve[0]["macro_f1"] < curve[-1]["macro_f1"] - 0.1
    with pytest.raises(ValueError, match="--cv"):
        evaluate_tickets(rows, learning_curve=True)


def test_learning_curve_subsample_keeps_every_label_and_only_training_tickets() -> None:
    from rules.evaluation.tickets import _curve_subsample

    gold = ["城乡建设"] * 40 + ["交通运输"] * 3 + ["教育文体"] * 17
    train = [*range(0, 60, 2), 41]  # the test fold holds the other tickets
    kept = _curve_subsample(train, gold, 0.25, seed=3)
    assert set(kept) <= set(train) and len(kept) == len(set(kept))
    counts = Counter(gold[i] for i in kept)
    assert counts == {"城乡建设": 5, "交通运输": 2, "教育文体": 2}  # 20 x 1/4; 3 x 1/4 raised to 2; 8 x 1/4
    assert kept == _curve_subsample(train, gold, 0.25, seed=3) != _curve_subsample(train, gold, 0.25, seed=4)
