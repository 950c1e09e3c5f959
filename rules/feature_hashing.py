"""Hashed text features shared by DocGate's linear models: character 1-4-grams and jieba words in fixed buckets.

Hashing keeps a model free of a vocabulary (small, no pickled estimators, nothing to drift between releases): a
text's char n-grams and words are counted into fixed buckets, weighted by sublinear tf x idf and L2-normalised
together. The n-gram hash is a rolling polynomial over code points finished by the splitmix64 mixer, computed for
the whole text at once with numpy (a text costs a few array operations, not one call per n-gram); words are hashed
with CRC-32. Both are fixed functions: the same text gives the same buckets in every process.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable, Sequence

import numpy as np
import rjieba
from scipy import sparse

CHAR_BUCKETS = 2**18
WORD_BUCKETS = 2**16
N_TEXT_FEATURES = CHAR_BUCKETS + WORD_BUCKETS


def jieba_words(text: str) -> list[str]:
    """jieba's dictionary words of `text` (no HMM guessing of unknown words), without whitespace tokens.

    Segmented by rjieba (jieba-rs: jieba's dictionary and maximum-probability route, compiled), which gives
    the same words as the Python jieba about ten times faster; `tests/rules/test_safety_model.py` holds the two
    to the same output.
    """
    return [word for word in rjieba.cut(text, False) if word.strip()]


CHAR_NGRAMS = (1, 4)
_WHITESPACE = re.compile(r"\s\s+")
_MULTIPLIER = np.uint64(0x100000001B3)  # FNV-1a 64-bit prime: spreads each code point over the word
_MIX_1, _MIX_2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
assert CHAR_BUCKETS & (CHAR_BUCKETS - 1) == 0, "buckets are taken as the hash's low bits"
_CHAR_MASK = np.uint64(CHAR_BUCKETS - 1)
_LENGTH_TAGS = np.arange(1, CHAR_NGRAMS[1] + 1, dtype=np.uint64)[:, None]  # n, XORed into each n-gram's hash


def _mixed(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, in place: every input bit affects every output bit."""
    values ^= values >> np.uint64(30)
    values *= _MIX_1
    values ^= values >> np.uint64(27)
    values *= _MIX_2
    values ^= values >> np.uint64(31)
    return values


def char_buckets(text: str) -> np.ndarray:
    """The bucket of every character n-gram (lengths CHAR_NGRAMS) of `text`, whitespace runs collapsed first.

    Row n-1 of one (n, length) array holds the rolling polynomial hash of every n-gram, each row extending the
    one above by the next code point; the rows' valid parts are tagged with n and mixed in one pass. On a short
    text numpy's cost is per operation, not per element, hence few and in-place operations. The bucket is the
    hash's low bits (CHAR_BUCKETS is a power of two).
    """
    text = _WHITESPACE.sub(" ", text)
    length = len(text)
    longest = min(CHAR_NGRAMS[1], length)
    if longest < CHAR_NGRAMS[0]:
        return np.zeros(0, dtype=np.int64)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    rows = np.empty((longest, length), dtype=np.uint64)
    rows[0] = codes
    # Array arithmetic on uint64 wraps modulo 2**64 without warnings (only numpy scalars warn), as intended.
    for n in range(2, longest + 1):
        # rows[n-1, i] = hash of codes[i : i + n], for every i where that n-gram exists.
        row = rows[n - 1, : length - n + 1]
        np.multiply(rows[n - 2, : length - n + 1], _MULTIPLIER, out=row)
        row += codes[n - 1 :]
    rows ^= _LENGTH_TAGS[:longest]
    hashes = _mixed(np.concatenate([rows[n - 1, : length - n + 1] for n in range(CHAR_NGRAMS[0], longest + 1)]))
    hashes &= _CHAR_MASK
    return hashes.view(np.int64)  # below 2**18: the same numbers as signed integers


class _WordBuckets(dict[str, int]):
    """word -> bucket, remembered: words recur from text to text, and a lookup is cheaper than encoding and
    CRC-ing the word again. Bounded (new words are still answered once it is full, just not kept)."""

    LIMIT = 50_000  # a few MB of short strings

    def __missing__(self, word: str) -> int:
        bucket = zlib.crc32(word.encode("utf-8")) % WORD_BUCKETS
        if len(self) < self.LIMIT:
            self[word] = bucket
        return bucket


_WORD_BUCKETS = _WordBuckets()


def word_buckets(text: str) -> np.ndarray:
    """The bucket of every jieba word of `text` (CRC-32 of its UTF-8 bytes); `jieba_words` in one pass."""
    buckets = _WORD_BUCKETS
    return np.array([buckets[word] for word in rjieba.cut(text, False) if not word.isspace()], dtype=np.int64)


def hashed_terms(text: str) -> tuple[np.ndarray, np.ndarray]:
    """One text's hashed buckets (char n-grams, then words after them) and their counts."""
    buckets = np.concatenate([char_buckets(text), word_buckets(text) + CHAR_BUCKETS])
    if not len(buckets):
        return buckets, np.zeros(0)
    # np.unique(return_counts=True) by hand: the same arrays for a fraction of its fixed cost on short texts.
    buckets.sort()
    # Where each run of equal buckets starts, and where the last one ends.
    edges = np.flatnonzero(np.concatenate(([True], buckets[1:] != buckets[:-1], [True])))
    return buckets[edges[:-1]], (edges[1:] - edges[:-1]).astype(np.float64)


def counts_matrix(
    texts: Sequence[str], terms: Callable[[str], tuple[np.ndarray, np.ndarray]] = hashed_terms
) -> sparse.csr_matrix:
    """Raw hashed counts of every text, one row per text (`terms` of each stacked)."""
    indptr, indices, data = [0], [], []
    for text in texts:
        columns, counts = terms(text)
        indices.append(columns)
        data.append(counts)
        indptr.append(indptr[-1] + len(columns))
    return sparse.csr_matrix(
        (
            np.concatenate(data) if data else np.zeros(0),
            np.concatenate(indices) if indices else np.zeros(0, dtype=np.int64),
            np.array(indptr),
        ),
        shape=(len(texts), N_TEXT_FEATURES),
    )


def idf_fit(counts: sparse.csr_matrix) -> np.ndarray:
    """Smoothed inverse document frequency of every bucket: ln((1 + n) / (1 + df)) + 1."""
    n = counts.shape[0]
    df = np.bincount(counts.indices, minlength=counts.shape[1])
    return (np.log((1.0 + n) / (1.0 + df)) + 1.0).astype(np.float32)


def text_weights(counts: sparse.csr_matrix, idf: np.ndarray) -> sparse.csr_matrix:
    """Sublinear tf x idf, rows L2-normalised (a copy; `counts` is left alone)."""
    weighted = counts.copy()
    weighted.data = (1.0 + np.log(weighted.data)) * idf[weighted.indices]
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    norms[norms == 0.0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ weighted)


def weights_digest(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over every array's name, dtype, shape and bytes: equal for equal weights, whatever the zip says."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()
