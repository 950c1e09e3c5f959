"""`manage.py evaluate` prints one JSON object with the keys of the evaluation contract."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tests.shared_data import shared_file


def evaluate(*args: str, **options: Any) -> dict[str, Any]:
    out, err = StringIO(), StringIO()
    call_command("evaluate", *args, stdout=out, stderr=err, **options)
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, "stdout carries exactly one JSON object"
    return dict(json.loads(lines[0]))


def test_script_task_reports_exact_match() -> None:
    report = evaluate("script", data=str(shared_file("normalize/opencc_to_simplified.jsonl")), json=True)
    assert report["n"] > 100 and 0.0 <= report["exact_match"] <= 1.0
    assert report["llm"] == "off"


def test_dialect_task_reports_cer_next_to_the_baseline() -> None:
    report = evaluate("dialect", data=str(shared_file("dialect/public.jsonl")), limit=80)
    assert {"n", "cer", "baseline_cer", "chrf", "word_accuracy", "word_occurrences"} <= set(report)
    assert report["n"] == 80
    assert 0.0 <= report["word_accuracy"] <= 1.0 and report["word_occurrences"] > 0


def test_clauses_task_reports_f1_and_span_hits() -> None:
    report = evaluate("clauses", data=str(shared_file("contracts/public.jsonl")))
    assert {"n_docs", "micro_f1", "macro_f1", "per_clause", "span_hit_rate"} <= set(report)
    assert report["n_docs"] == 24


def test_tickets_task_reports_per_label_scores() -> None:
    report = evaluate("tickets", data=str(shared_file("tickets/public.jsonl")), limit=200)
    assert {"n", "accuracy", "macro_f1", "per_label"} <= set(report)


def test_missing_file_and_wrong_format_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        evaluate("script", data=str(tmp_path / "absent.jsonl"))
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": 1}\nnot json\n', encoding="utf-8")
    with pytest.raises(CommandError, match=r"broken\.jsonl:2"):
        evaluate("script", data=str(broken))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"id": 1, "text": "x"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="format"):
        evaluate("dialect", data=str(wrong))


@pytest.mark.llm
def test_llm_on_scores_the_configured_server_next_to_the_rules(llm_on: Any) -> None:
    report = evaluate("tickets", data=str(shared_file("tickets/public.jsonl")), limit=2, llm="on")
    assert {"n", "macro_f1"} <= set(report)  # the rules' figures stay on top
    llm = report["llm_report"]
    assert llm["engine"] == "llamacpp" and llm["rows"] == 2
    assert llm["calls"] >= 1 and llm["unavailable_rows"] == 0, llm["errors"]
    assert {"accuracy", "macro_f1", "per_label"} <= set(llm)
    safety = evaluate("safety", data=str(shared_file("safety/public.jsonl")), limit=3, llm="on")
    assert safety["llm_report"]["combined_per_source"]
    dialect = evaluate("dialect", data=str(shared_file("dialect/public.jsonl")), limit=3, llm="on")
    words = dialect["llm_report"]  # the LLM's rewrite scored word by word, next to its CER
    assert words["rows"] == 3 and words["word_occurrences"] == dialect["word_occurrences"] > 0, words["errors"]
    assert 0.0 <= words["word_accuracy"] <= 1.0
