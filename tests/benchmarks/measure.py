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


def paired_chars_per_second(
    functions: Sequence[Callable[[str], object]],
    documents: Sequence[str],
    rounds: int = 3,
    batch: int = 250,
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Characters per second of each function over the same documents, for comparing them on a noisy machine.

    The documents are taken in batches; each batch is run by every function in turn, `rounds` times, and each
    function is charged its fastest run of every batch. A slow spell then costs one batch's run, not one side's
    whole measurement, and a ratio between the functions compares like with like. `clock`: time.process_time
    for single-threaded work on a loaded machine (time spent waiting for a core is not charged).
    """
    seconds = [0.0] * len(functions)
    for offset in range(0, len(documents), batch):
        part = documents[offset : offset + batch]
        best = [float("inf")] * len(functions)
        for _ in range(rounds):
            for number, function in enumerate(functions):
                started = clock()
                for document in part:
                    function(document)
                best[number] = min(best[number], clock() - started)
        seconds = [total + fastest for total, fastest in zip(seconds, best, strict=True)]
    chars = sum(map(len, documents))
    return [chars / spent for spent in seconds]


def naive_term_hits(folded: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    """Every occurrence of every literal term in already-folded text, found term by term with str.find."""
    hits = []
    for term in terms:
        position = folded.find(term)
        while position != -1:
            hits.append((position, term))
            position = folded.find(term, position + 1)
    return hits
