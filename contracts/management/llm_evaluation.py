"""`evaluate --llm on`: score the LLM's answers on labelled data next to the rules, on the configured server."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from inference.answers import LLMTaskResult
from inference.client import LLMClient
from inference.errors import LLMError
from inference.prompts import prompt_render
from inference.questions import cantonese_rewrite, clauses_extract, ticket_classify
from rules.clauses import load_pack
from rules.evaluation.clauses import evaluate_clauses
from rules.evaluation.common import classification_report
from rules.evaluation.dialect import canonical_form, chrf, corpus_cer
from rules.evaluation.dialect_words import aligned, word_accuracy
from rules.normalize import normalize
from rules.safety import gate_combine, safety_score
from rules.tickets.taxonomy import load_taxonomy


class _Tally:
    """Counts what the LLM calls cost and how many rows it could not answer."""

    def __init__(self) -> None:
        self.rows = self.unavailable = self.calls = self.invalid = self.dropped = 0
        self.latency_ms = 0.0
        self.errors: dict[str, int] = {}

    def add(self, result: LLMTaskResult) -> None:
        self.calls += result.calls
        self.invalid += result.invalid_outputs
        self.dropped += result.dropped_ungrounded
        self.latency_ms += result.llm_latency_ms

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "unavailable_rows": self.unavailable,
            "calls": self.calls,
            "invalid_outputs": self.invalid,
            "dropped_ungrounded": self.dropped,
            "llm_seconds": round(self.latency_ms / 1000, 2),
        }


def _each_row(rows: list[dict[str, Any]], tally: _Tally, answer: Callable[[dict[str, Any]], Any]) -> list[Any]:
    """Answer every row; a row the server cannot answer gets None and is counted (the run goes on)."""
    answers: list[Any] = []
    for n, row in enumerate(rows, start=1):
        tally.rows += 1
        try:
            answers.append(answer(row))
        except LLMError as exc:
            tally.unavailable += 1
            name = f"{type(exc).__name__}: {str(exc)[:80]}"
            tally.errors[name] = tally.errors.get(name, 0) + 1
            answers.append(None)
        if n % 25 == 0:
            print(f"  llm: {n}/{len(rows)} rows", file=sys.stderr, flush=True)
    return answers


def llm_evaluate(task: str, rows: list[dict[str, Any]], client: LLMClient) -> dict[str, Any]:
    """Return the LLM's scores for one task (same metric keys as the rules' report) plus call counters."""
    tally = _Tally()
    if task == "tickets":
        report = _tickets(rows, client, tally)
    elif task == "clauses":
        report = _clauses(rows, client, tally)
    elif task == "dialect":
        report = _dialect(rows, client, tally)
    elif task == "safety":
        report = _safety(rows, client, tally)
    else:
        return {"note": f"the LLM takes no part in the {task} task"}
    return {**report, **tally.as_dict(), "model": client.config.model, "engine": client.config.engine}


def _tickets(rows: list[dict[str, Any]], client: LLMClient, tally: _Tally) -> dict[str, Any]:

    taxonomy = load_taxonomy()

    def answer(row: dict[str, Any]) -> str | None:
        result = ticket_classify(client, normalize(row["text"]).text, taxonomy)
        tally.add(result)
        return next((f.label for f in result.findings if f.kind == "category"), None)

    predicted = _each_row(rows, tally, answer)
    return classification_report([str(r["label"]) for r in rows], predicted)


def _clauses(rows: list[dict[str, Any]], client: LLMClient, tally: _Tally) -> dict[str, Any]:

    labels = tuple(load_pack().clauses)
    predictions = {}

    def answer(row: dict[str, Any]) -> dict[str, tuple[int, int]]:
        normalized = normalize(row["text"])
        result = clauses_extract(client, normalized.text, labels)
        tally.add(result)
        spans: dict[str, tuple[int, int]] = {}
        for finding in result.findings:
            spans.setdefault(finding.label, normalized.to_original(finding.start, finding.end))
        return spans

    for row, spans in zip(rows, _each_row(rows, tally, answer), strict=True):
        predictions[row["text"]] = spans or {}
    return evaluate_clauses(rows, predict=lambda text: dict(predictions[text]))


def _dialect(rows: list[dict[str, Any]], client: LLMClient, tally: _Tally) -> dict[str, Any]:

    def answer(row: dict[str, Any]) -> str:
        result = cantonese_rewrite(client, normalize(row["source"]).text)
        tally.add(result)
        return result.output_text or ""

    outputs = _each_row(rows, tally, answer)
    systems = [
        canonical_form(o) if o is not None else normalize(r["source"]).text for o, r in zip(outputs, rows, strict=True)
    ]
    references = [canonical_form(r["reference"]) for r in rows]
    # word accuracy of what the LLM made of each Cantonese word: its output aligned to the rules' (a row it could
    # not answer keeps the rules' output, as the product does)
    rewritten = {r["source"]: o for o, r in zip(outputs, rows, strict=True) if o is not None}
    words = word_accuracy(
        [r["source"] for r in rows],
        rewrite=lambda source: (
            aligned(normalize(source), rewritten[source]) if source in rewritten else normalize(source)
        ),
    )
    return {
        "n": len(rows),
        "cer": round(corpus_cer(systems, references), 4),
        "chrf": round(chrf(systems, references), 2),
        "word_accuracy": words["word_accuracy"],
        "word_occurrences": words["word_occurrences"],
    }


def _safety(rows: list[dict[str, Any]], client: LLMClient, tally: _Tally) -> dict[str, Any]:

    def answer(row: dict[str, Any]) -> float:
        return client.yes_probability(prompt_render("safety_check", normalize(row["text"]).text).messages)

    risks = _each_row(rows, tally, answer)
    per_source: dict[str, dict[str, int]] = {}
    for row, llm_risk in zip(rows, risks, strict=True):
        decision, _, _ = gate_combine(safety_score(row["text"]).risk, llm_risk)
        counts = per_source.setdefault(
            row.get("source", "all"), {"n": 0, "unsafe": 0, "flagged_unsafe": 0, "safe": 0, "flagged_safe": 0}
        )
        counts["n"] += 1
        kind = "unsafe" if row["label"] == "unsafe" else "safe"
        counts[kind] += 1
        counts[f"flagged_{kind}"] += decision in ("review", "block")
    return {
        "n": len(rows),
        "combined_per_source": {
            source: {
                "n": c["n"],
                "unsafe_recall": round(c["flagged_unsafe"] / c["unsafe"], 4) if c["unsafe"] else None,
                "false_flag_rate": round(c["flagged_safe"] / c["safe"], 4) if c["safe"] else None,
            }
            for source, c in sorted(per_source.items())
        },
    }
