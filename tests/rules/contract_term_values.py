"""Exact-normalised-value accuracy of the contract-term value parsers on a hand-labelled set.

The labels (fixtures/contract_term_values.jsonl) were written by reading snippets of the public contracts and the
unlabelled training contracts: each row names a document by id, quotes the value as written (with a few
characters of context where the value recurs) and gives the value a reader writes down. No document text is stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rules.contract_terms import KeyTerm, find_dates, find_durations, find_money, find_rates, key_terms
from rules.contract_terms.sentences import half_width_digits
from tests.shared_data import shared_file

LABELS = Path(__file__).parent / "fixtures" / "contract_term_values.jsonl"
CORPORA = ("contracts/public.jsonl", "train/contracts_unlabeled.jsonl")
Found = list[tuple[int, int, str]]


def _dates(text: str) -> Found:
    return [(d.start, d.end, d.value or "blank") for d in find_dates(text)]


def _amounts(text: str) -> Found:
    return [(s, e, f"{m.currency} {format(m.amount.normalize(), 'f')}") for s, e, m in find_money(text)]


def _durations(text: str) -> Found:
    return [(d.start, d.end, d.value.normalised()) for d in find_durations(text)]


def _rates(text: str) -> Found:
    out = []
    for r in find_rates(text):
        fraction = format(r.value.fraction.normalize(), "f")
        out.append((r.start, r.end, f"{fraction}/{r.value.period}" if r.value.period else fraction))
    return out


FINDERS: dict[str, Callable[[str], Found]] = {
    "date": _dates,
    "amount": _amounts,
    "duration": _durations,
    "rate": _rates,
}


def documents() -> dict[str, str]:
    """Every labelled-set source document by id."""
    texts: dict[str, str] = {}
    for relative in CORPORA:
        with open(shared_file(relative), encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    row = json.loads(line)
                    texts[row["id"]] = row["text"]
    return texts


def labels() -> list[dict[str, Any]]:
    with open(LABELS, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def evaluate(batch: str | None = None) -> tuple[dict[str, tuple[int, int]], list[tuple[dict[str, str], str | None]]]:
    """Per category (correct, total), and every miss with what the parser read there; `batch` picks the labels
    written while the parsers were tuned ("development") or those written after, measured once ("fresh")."""
    texts = documents()
    scores: dict[str, list[int]] = {}
    misses: list[tuple[dict[str, str], str | None]] = []
    for label in labels():
        if batch is not None and label["batch"] != batch:
            continue
        text = half_width_digits(texts[label["id"]])
        quote = half_width_digits(label["quote"])
        start = text.find(quote)
        if start < 0:
            raise AssertionError(f"quote not found: {label}")
        end = start + len(quote)
        # The sentence holding the quote is what the parser reads, as key_terms does.
        left = max(text.rfind(ch, 0, start) for ch in "。；\n") + 1
        right = min((i for i in (text.find(ch, end) for ch in "。；\n") if i >= 0), default=len(text))
        found = [(s + left, e + left, v) for s, e, v in FINDERS[label["category"]](text[left:right])]
        value = next((v for s, e, v in found if s < end and start < e), None)
        score = scores.setdefault(label["category"], [0, 0])
        score[1] += 1
        if value == label["expected"]:
            score[0] += 1
        else:
            misses.append((label, value))
    return {k: (v[0], v[1]) for k, v in scores.items()}, misses


KEY_TERM_LABELS = Path(__file__).parent / "fixtures" / "contract_key_terms.jsonl"


def evaluate_key_terms() -> tuple[int, int, list[tuple[dict[str, Any], list[str]]]]:
    """Key terms read from whole documents: a label is met when the sentence holding its quote has a term of its
    kind with the expected normalised value (`blank` for a blank, null for no term of that kind there)."""
    texts = documents()
    with open(KEY_TERM_LABELS, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    correct, misses = 0, []
    terms_by_doc: dict[str, tuple[KeyTerm, ...]] = {}
    for label in rows:
        text = texts[label["id"]]
        terms = terms_by_doc.setdefault(label["id"], key_terms(text))
        start = text.find(label["quote"])
        if start < 0:
            raise AssertionError(f"quote not found: {label}")
        left = max(text.rfind(ch, 0, start) for ch in "。；\n") + 1
        right = min((i for i in (text.find(ch, start) for ch in "。；\n") if i >= 0), default=len(text))
        found = [t.normalised() for t in terms if t.kind == label["kind"] and left <= t.start < right]
        if (label["expected"] is None and not found) or label["expected"] in found:
            correct += 1
        else:
            misses.append((label, found))
    return correct, len(rows), misses


if __name__ == "__main__":
    for name in ("development", "fresh", None):
        totals, wrong = evaluate(name)
        print(f"== {name or 'all'}")
        for category, (correct, total) in sorted(totals.items()):
            print(f"{category:9} {correct}/{total} = {correct / total:.3f}")
        for label, value in wrong if name else []:
            print("MISS", label["id"], label["quote"], "expected", label["expected"], "got", value)
    correct, total, missed = evaluate_key_terms()
    print(f"== key terms in context: {correct}/{total} = {correct / total:.3f}")
    for label, found in missed:
        print("MISS", label["id"], label["quote"], label["kind"], "expected", label["expected"], "got", found)
