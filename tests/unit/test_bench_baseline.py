"""`make bench` compares each ratio with the recorded baseline and names every drop of more than 30 %."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.benchmarks import baseline, run

RECORDED: dict[str, Any] = {
    "max_drop": 0.3,
    "ratios": {
        "bench_normalize": {
            "per_document_ratio": {"value": 0.5, "better": "higher", "commit": "abc1234", "recorded": "2026-12-02"},
            "whole_corpus_ratio": {"value": 0.4, "better": "higher", "commit": "abc1234", "recorded": "2026-12-02"},
        },
        "bench_llm": {"overhead_ratio": {"value": 1.0, "better": "lower", "commit": "abc1234", "recorded": "x"}},
    },
}


def normalize_report(per_document: float, whole_corpus: float) -> dict[str, object]:
    return {"per_document_ratio": per_document, "whole_corpus_ratio": whole_corpus, "documents": 16062}


def test_a_normalizer_ten_times_slower_is_named_as_a_regression() -> None:
    comparisons = baseline.compare(RECORDED, {"bench_normalize": normalize_report(0.05, 0.38)})
    regressed = baseline.regressions(comparisons)
    assert [(c.benchmark, c.metric) for c in regressed] == [("bench_normalize", "per_document_ratio")]
    assert regressed[0].drop == pytest.approx(0.9)
    assert "REGRESSION" in regressed[0].line() and "bench_normalize.per_document_ratio" in regressed[0].line()


@pytest.mark.parametrize(
    ("current", "regressed"),
    [(0.36, False), (0.28, False), (0.27, True), (0.9, False)],
    ids=["10-percent-slower", "exactly-30-percent", "just-over-30-percent", "faster"],
)
def test_only_drops_of_more_than_thirty_percent_count(current: float, regressed: bool) -> None:
    comparisons = baseline.compare(RECORDED, {"bench_normalize": normalize_report(0.5, current)})
    whole = next(c for c in comparisons if c.metric == "whole_corpus_ratio")
    assert whole.regression is regressed


def test_a_ratio_better_low_regresses_when_it_grows() -> None:
    comparisons = baseline.compare(RECORDED, {"bench_llm": {"overhead_ratio": 1.5}})
    assert comparisons[0].regression  # 1.0 -> 1.5: a third of the performance lost
    assert not baseline.compare(RECORDED, {"bench_llm": {"overhead_ratio": 0.8}})[0].regression


def test_benchmarks_without_a_baseline_or_that_failed_are_not_compared() -> None:
    reports = {"bench_tickets": {"ratio_vs_naive": 1.0}, "bench_normalize": {"error": ["Traceback"]}}
    assert baseline.compare(RECORDED, reports) == []


def test_recording_replaces_the_benchmarks_that_ran_and_keeps_the_others() -> None:
    reports = {"bench_normalize": normalize_report(0.6, 0.45), "bench_tickets": {"ratio_vs_naive": 14.0, "p50": 3}}
    new = baseline.recorded(RECORDED, reports, "def5678", "2026-12-03")
    assert new["ratios"]["bench_normalize"]["per_document_ratio"] == {
        "value": 0.6,
        "better": "higher",
        "commit": "def5678",
        "recorded": "2026-12-03",
    }
    assert new["ratios"]["bench_tickets"] == {
        "ratio_vs_naive": {"value": 14.0, "better": "higher", "commit": "def5678", "recorded": "2026-12-03"}
    }
    assert new["ratios"]["bench_llm"] == RECORDED["ratios"]["bench_llm"]


def test_direction_is_read_from_the_ratio_name() -> None:
    assert baseline.direction("ratio_vs_naive") == "higher"
    assert baseline.direction("ratio_api_over_raw_insert") == "lower"
    assert baseline.direction("overhead_ratio") == "lower"


def test_run_compares_a_saved_report_and_exits_nonzero_on_a_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    baseline_file = tmp_path / "baseline.json"
    baseline_file.write_text(json.dumps(RECORDED), encoding="utf-8")
    monkeypatch.setattr(baseline, "BASELINE_FILE", baseline_file)
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps({"benchmarks": {"bench_normalize": normalize_report(0.05, 0.4)}}), encoding="utf-8")
    assert run.main(["--compare", str(saved)]) == 1
    err = capsys.readouterr().err
    assert "REGRESSION: bench_normalize.per_document_ratio lost 90%" in err
    assert "--only bench_normalize --record" in err
    saved.write_text(json.dumps({"benchmarks": {"bench_normalize": normalize_report(0.48, 0.4)}}), encoding="utf-8")
    assert run.main(["--compare", str(saved)]) == 0
    assert "REGRESSION" not in capsys.readouterr().err


def test_the_committed_baseline_tracks_the_normalizer() -> None:
    recorded = baseline.load()["ratios"]["bench_normalize"]
    assert {"per_document_ratio", "whole_corpus_ratio"} <= set(recorded)
    assert all(entry["better"] == "higher" and entry["commit"] and entry["value"] > 0 for entry in recorded.values())
