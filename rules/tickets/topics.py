"""Topic clusters of tickets: TF-IDF over character bigrams, average-linkage clustering at a fixed similarity.

The representation is the repeat detector's (`rules.tickets.repeats.shingles`: bigrams of the width-folded text
without punctuation, sublinear tf, smoothed idf, L2 rows), so a reworded complaint lands near the original whatever
its word order. Bigrams found in one ticket only are left out: they cannot make two tickets alike, only dilute
them. (Leaving out the bigrams of more than a share of the tickets as well, the language of every complaint, also
left out a hotspot's own words wherever it was more than that share of the tickets.) Clustering is agglomerative
with average linkage on cosine distance, cut where the mean similarity between two groups falls below
`TOPIC_SIMILARITY`: every member of a topic is, on average, that similar to the rest, and one ticket bridging two
complaints cannot chain them together (single linkage would). It has no random start and the tickets are put in a
fixed order first, so the same tickets always give the same topics.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import sparse
from scipy.cluster.hierarchy import fcluster, linkage
from scipy.spatial.distance import squareform
from sklearn.feature_extraction.text import TfidfVectorizer

from rules.feature_hashing import jieba_words
from rules.tickets.repeats import shingles

# Measured on the public board's tickets (the first 200, 400, 800 and all 1,842) with twelve rewordings of one
# complaint added (README "Hotspots"): cut at 0.18 the twelve are one topic at every size, and 79-94% of the
# board's multi-ticket topics hold one category only; at 0.2 two rewordings split off over the whole board.
TOPIC_SIMILARITY = 0.18
KEYWORDS = 5
# A single character (的, 了, 路) names no topic.
_KEYWORD_MIN_CHARS = 2


def _bigrams(text: str) -> list[str]:
    return list(shingles(text).elements())


def topic_vectors(texts: Sequence[str]) -> Any:
    """The tickets' row-normalised TF-IDF bigram vectors, as a sparse matrix."""
    vectorizer = TfidfVectorizer(analyzer=_bigrams, min_df=2, sublinear_tf=True, norm="l2", dtype=np.float64)
    try:
        return vectorizer.fit_transform(texts)
    except ValueError:  # no bigram left (texts of one character, or all alike): no text is like another
        return sparse.csr_matrix((len(texts), 1))


def topic_labels(vectors: Any, similarity: float = TOPIC_SIMILARITY) -> list[int]:
    """One topic number per row of `topic_vectors` (0, 1, … in order of first appearance); rows alike by average
    linkage share one."""
    if vectors.shape[0] < 2:
        return [0] * vectors.shape[0]
    distance = _distances(vectors)
    np.fill_diagonal(distance, 0.0)
    tree = linkage(squareform(distance, checks=False), method="average")
    raw = fcluster(tree, t=1.0 - similarity, criterion="distance")
    renumbered: dict[int, int] = {}
    return [renumbered.setdefault(int(label), len(renumbered)) for label in raw]


def _distances(vectors: Any, block: int = 500) -> np.ndarray:
    """1 - cosine similarity of every pair of rows, filled `block` rows at a time: the sparse product of all rows at
    once holds nearly every pair too, and would take more memory than the dense answer."""
    n = vectors.shape[0]
    distance = np.empty((n, n))
    transposed = vectors.T.tocsc()
    for start in range(0, n, block):
        distance[start : start + block] = (vectors[start : start + block] @ transposed).toarray()
    np.subtract(1.0, distance, out=distance)
    np.clip(distance, 0.0, 1.0, out=distance)
    return distance


def medoid(vectors: Any, members: Sequence[int]) -> int:
    """The member most similar on average to the others (the first of equals): the group's typical ticket."""
    if len(members) < 3:
        return members[0]
    block = vectors[list(members)]
    mean_similarity = np.asarray((block @ block.T).sum(axis=1)).ravel()
    return members[int(np.argmax(mean_similarity))]


class KeywordIndex:
    """jieba words of every ticket, to name a group by the words its tickets share and the others do not."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._words = [frozenset(w for w in jieba_words(text) if _keyword_like(w)) for text in texts]
        self._frequency: Counter[str] = Counter(w for words in self._words for w in words)
        self._n = len(texts)

    def keywords(self, members: Sequence[int], limit: int = KEYWORDS) -> list[str]:
        """The words most typical of the group: share of its tickets holding them times their idf."""
        inside: Counter[str] = Counter(w for i in members for w in self._words[i])
        minimum = 2 if len(members) > 1 else 1  # a word in one ticket of a group says nothing about the group

        def score(word: str) -> float:
            idf = math.log((1 + self._n) / (1 + self._frequency[word])) + 1.0
            return inside[word] / len(members) * idf

        ranked = sorted((w for w, n in inside.items() if n >= minimum), key=lambda w: (-score(w), w))
        return ranked[:limit]


def _keyword_like(word: str) -> bool:
    """A word that may name a topic: two characters or more, not a number or a code."""
    return len(word) >= _KEYWORD_MIN_CHARS and not any(c.isdigit() or c.isascii() for c in word)
