"""Shared measuring helpers for the benchmarks: best-of-N throughput and the naive term-by-term baseline."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

SIZES = (1_000, 10_000, 100_000, 1_000_000)
GROWTH_CHARS = 1_000_000  # characters processed per size, so every size is timed over the same work


def chars_per_second(function: Callable[[str], object], documents: Sequence[str], repeats: int = 3) -> float:
    """Characters per second of `function` over the documents, best of `repeats` runs (least disturbed)."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for document in documents:
            function(document)
        best = min(best, time.perf_counter() - started)
    return sum(map(len, documents)) / best


def naive_term_hits(folded: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    """Every occurrence of every literal term in already-folded text, found term by term with str.find."""
    hits = []
    for term in terms:
        position = folded.find(term)
        while position != -1:
            hits.append((position, term))
            position = folded.find(term, position + 1)
    return hits
