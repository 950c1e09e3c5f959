"""The trainable ticket classifier: accuracy on the public board, artifacts, and the cross-validated evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.evaluation.common import classification_report, jsonl_rows
from rules.evaluation.tickets import evaluate_tickets
from rules.tickets import IncompatibleArtifactError, TicketClassifier, classify_ticket, train_classifier
from rules.tickets.classifier import (
    METADATA_FILE,
    MODEL_FILE,
    OPENING_CHARS,
    RuleScoreFeatures,
    baseline_pipeline,
    ticket_normalised,
    ticket_opening,
    ticket_search_words,
    ticket_title,
)
from tests.shared_data import shared_file


@pytest.fixture(scope="module")
def board() -> list[dict]:
    return list(jsonl_rows(shared_file("tickets/public.jsonl")))


@pytest.fixture(scope="module")
def split(board: list[dict]) -> tuple[list[dict], list[dict]]:
    """A stratified 80/20 split, fixed so the numbers are comparable between runs."""
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(board, test_size=0.2, random_state=7, stratify=[r["label"] for r in board])
    return train, test


@pytest.fixture(scope="module")
def trained(split: tuple[list[dict], list[dict]]) -> TicketClassifier:
    train, _ = split
    return train_classifier([r["text"] for r in train], [r["label"] for r in train])


def test_classifier_beats_floor_and_plain_svm_on_held_out_tickets(
    trained: TicketClassifier, split: tuple[list[dict], list[dict]]
) -> None:
    train, test = split
    gold = [r["label"] for r in test]
    ours = classification_report(gold, [p.label for p in trained.predict([r["text"] for r in test])])
    baseline = baseline_pipeline().fit([r["text"] for r in train], [r["label"] for r in train])
    plain = classification_report(gold, [str(label) for label in baseline.predict([r["text"] for r in test])])
    assert ours["macro_f1"] >= 0.86, ours["per_label"]
    assert ours["macro_f1"] > plain["macro_f1"]


def test_confidence_is_higher_on_correct_predictions(
    trained: TicketClassifier, split: tuple[list[dict], list[dict]]
) -> None:
    _, test = split
    predictions = trained.predict([r["text"] for r in test])
    right = [p.confidence for p, r in zip(predictions, test, strict=True) if p.label == r["label"]]
    wrong = [p.confidence for p, r in zip(predictions, test, strict=True) if p.label != r["label"]]
    assert all(0.0 <= p.confidence <= 1.0 for p in predictions)
    assert sum(right) / len(right) > sum(wrong) / len(wrong) + 0.1


def test_artifact_round_trip_keeps_predictions_and_metadata(trained: TicketClassifier, tmp_path: Path) -> None:
    texts = ["小区物业乱收停车费", "学校老师有偿补课", "化工厂排放废气刺鼻"]
    trained.save(tmp_path / "model")
    loaded = TicketClassifier.load(tmp_path / "model")
    assert loaded.predict(texts) == trained.predict(texts)
    metadata = json.loads((tmp_path / "model" / METADATA_FILE).read_text("utf-8"))
    for key in ("model_version", "trained_at", "n_samples", "labels", "sklearn_version", "rule_pack_version"):
        assert metadata[key]
    assert loaded.version == trained.version
    result = classify_ticket("化工厂排放废气刺鼻，附近居民头晕", loaded)
    assert result.source == "both" and result.model_version == trained.version


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"sklearn_version": "0.24.2"}, "scikit-learn 0.24.2"),
        ({"format_version": 99}, "format version 99"),
        ({"format": "something-else"}, "not a DocGate ticket classifier"),
        ({"model_sha256": "0" * 64}, "checksum"),
    ],
    ids=["old-sklearn", "future-format", "foreign-file", "altered-model"],
)
def test_incompatible_artifact_is_refused_before_unpickling(
    trained: TicketClassifier, tmp_path: Path, change: dict, message: str
) -> None:
    directory = trained.save(tmp_path / "model")
    metadata = json.loads((directory / METADATA_FILE).read_text("utf-8"))
    (directory / METADATA_FILE).write_text(json.dumps({**metadata, **change}), "utf-8")
    with pytest.raises(IncompatibleArtifactError, match=message):
        TicketClassifier.load(directory)


def test_missing_artifact_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IncompatibleArtifactError, match=METADATA_FILE):
        TicketClassifier.load(tmp_path)
    assert MODEL_FILE == "model.joblib"


@pytest.mark.parametrize(
    ("texts", "labels", "message"),
    [
        (["a", "b"], ["城乡建设"], "2 texts but 1 labels"),
        (["a", "b"], ["城乡建设", "城乡建设"], "two different labels"),
        (["a", "b"], ["城乡建设", "天气"], "outside the ticket taxonomy"),
    ],
    ids=["length-mismatch", "one-label", "unknown-label"],
)
def test_training_rejects_unusable_data(texts: list[str], labels: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        train_classifier(texts, labels)


def test_evaluate_with_training_file_and_with_cross_validation(board: list[dict]) -> None:
    sample = board[::6]  # every label is present; small enough to stay fast
    trained = evaluate_tickets(sample[:200], train_rows=sample[100:])
    assert trained["mode"] == "classifier" and trained["n_train"] == len(sample) - 100
    report = evaluate_tickets(sample, cv=3)
    assert report["mode"] == "cv" and report["folds"] == 3 and report["n"] == len(sample)
    for key in ("accuracy", "macro_f1", "baseline_macro_f1", "classifier_macro_f1", "agreement_rate"):
        assert 0.0 <= report[key] <= 1.0
    with pytest.raises(ValueError, match="either"):
        evaluate_tickets(sample, train_rows=sample, cv=3)


def test_place_codes_and_numbers_are_folded_so_they_are_not_features() -> None:
    text = "B7县青山镇12栋楼下的垃圾站2023年以来一直没人清运，A市A3区也一样"
    assert ticket_normalised(text) == "某县青山镇0栋楼下的垃圾站0年以来一直没人清运，某市某区也一样"
    # Real place names and ordinary Latin words stay as they are.
    assert ticket_normalised("长沙市岳麓区的WiFi") == "长沙市岳麓区的WiFi"
    assert ticket_title(["C4区公交站牌被撞倒，尊敬的领导：……"]) == ["某区公交站牌被撞倒"]


def test_the_text_features_read_the_opening_of_a_long_letter() -> None:
    letter = "小区门口的路灯坏了三个月" + "。我们多次打电话反映" * 60
    (opening,) = ticket_opening([letter])
    assert len(opening) == OPENING_CHARS and opening.startswith("小区门口的路灯坏了")


def test_word_features_share_the_words_inside_compounds() -> None:
    """A ticket about the 社保卡 and one about the 社保局 share the word 社保; whitespace is no word."""
    card, office = ticket_search_words("社保卡 补办"), ticket_search_words("社保局")
    assert {"社保", "社保卡", "补办"} <= set(card) and {"社保", "社保局"} <= set(office)
    assert all(word.strip() for word in card)


def test_rule_scores_keep_how_much_evidence_there_is() -> None:
    """Per-ticket normalisation would give both tickets the same vector; the amount of evidence must show."""
    many = "学校乱收费，补课费、教辅资料费、校服费都要交，教育局不管"
    weak, strong = RuleScoreFeatures().transform(["学校收费", many])
    assert weak.nnz and strong.sum() > weak.sum() * 1.5
