"""Repeat-complaint detection: TF-IDF cosine over character 2/3-gram shingles of previously seen tickets."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from scipy import sparse

from rules.normalize.width import fold_text

# Over a board's 1.8k tickets, reworded repeats of one complaint mostly score 0.3-0.7 and the nearest
# different complaint is below 0.25 for 95% of tickets; character bigrams separated these best (vs 1-3-grams).
DEFAULT_THRESHOLD = 0.3
NGRAM_SIZES = (2,)
# Punctuation, spaces and symbols carry no topic; dropping them lets "噪音，扰民" match "噪音扰民".
_NOISE = re.compile(r"[\W_]+")


class SimilarTicket(NamedTuple):
    """A previously seen ticket and its cosine similarity to the query."""

    ticket_id: str
    score: float


def shingles(text: str, sizes: tuple[int, ...] = NGRAM_SIZES) -> Counter[str]:
    """Character n-gram counts of the folded text without punctuation or spaces."""
    compact = _NOISE.sub("", fold_text(text))
    counts: Counter[str] = Counter()
    for size in sizes:
        counts.update(compact[i : i + size] for i in range(len(compact) - size + 1))
    return counts


class RepeatDetector:
    """In-memory index of (id, text) tickets answering "which earlier tickets say the same thing?"."""

    def __init__(self, tickets: Iterable[tuple[str, str]] = (), *, sizes: tuple[int, ...] = NGRAM_SIZES) -> None:
        self.sizes = sizes
        self._ids: list[str] = []
        self._vocabulary: dict[str, int] = {}
        self._document_frequency: list[int] = []
        self._rows: list[tuple[list[int], list[float]]] = []
        self._matrix: sparse.csr_matrix | None = None  # row-normalised tf-idf; rebuilt after adds
        self._idf: np.ndarray = np.zeros(0)
        for ticket_id, text in tickets:
            self.add(ticket_id, text)

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, ticket_id: str, text: str) -> None:
        """Index one ticket (ids need not be unique; each add is a separate entry)."""
        columns, tfs = [], []
        for gram, n in shingles(text, self.sizes).items():
            column = self._vocabulary.setdefault(gram, len(self._vocabulary))
            if column == len(self._document_frequency):
                self._document_frequency.append(0)
            self._document_frequency[column] += 1
            columns.append(column)
            # Sublinear tf, so one repeated phrase does not outweigh the rest of the ticket.
            tfs.append(1.0 + math.log(n))
        self._ids.append(ticket_id)
        self._rows.append((columns, tfs))
        self._matrix = None  # document frequencies changed: weights are rebuilt on the next query

    def _index(self) -> sparse.csr_matrix:
        """The row-normalised tf-idf matrix of all indexed tickets (built once per batch of adds)."""
        if self._matrix is None:
            frequency = np.asarray(self._document_frequency, dtype=float)
            self._idf = np.log((1.0 + len(self._ids)) / (1.0 + frequency)) + 1.0
            indptr = np.cumsum([0] + [len(columns) for columns, _ in self._rows])
            indices = np.fromiter((c for columns, _ in self._rows for c in columns), dtype=np.int64)
            data = np.fromiter((v for _, tfs in self._rows for v in tfs), dtype=float)
            matrix = sparse.csr_matrix(
                (data * self._idf[indices], indices, indptr), shape=(len(self._rows), len(frequency))
            )
            norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
            norms[norms == 0] = 1.0
            self._matrix = sparse.csr_matrix(sparse.diags(1.0 / norms) @ matrix)
        return self._matrix

    def similar(
        self, text: str, threshold: float = DEFAULT_THRESHOLD, *, limit: int = 10, exclude: str | None = None
    ) -> list[SimilarTicket]:
        """Indexed tickets with cosine similarity >= threshold, best first (at most `limit`)."""
        if not self._ids:
            return []
        matrix = self._index()
        unseen_idf = math.log(1.0 + len(self._ids)) + 1.0
        columns, values, norm_squared = [], [], 0.0
        for gram, n in shingles(text, self.sizes).items():
            column = self._vocabulary.get(gram)
            weight = (1.0 + math.log(n)) * (self._idf[column] if column is not None else unseen_idf)
            norm_squared += weight * weight
            if column is not None:
                columns.append(column)
                values.append(weight)
        if not columns:
            return []
        query = sparse.csr_matrix(
            (np.asarray(values) / math.sqrt(norm_squared), np.asarray(columns), [0, len(columns)]),
            shape=(1, matrix.shape[1]),
        )
        scores = np.asarray((matrix @ query.T).todense()).ravel()
        order = np.argsort(-scores, kind="stable")
        hits: list[SimilarTicket] = []
        for i in order:
            if scores[i] < threshold or len(hits) >= limit:
                break
            if self._ids[i] != exclude:
                hits.append(SimilarTicket(self._ids[i], round(float(scores[i]), 4)))
        return hits
