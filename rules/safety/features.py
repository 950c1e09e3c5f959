"""Features of the learned safety classifier: hashed character 1-4-grams and jieba words, plus the lexicon's scores.

Hashing keeps the model free of a vocabulary (small, no pickled estimators, nothing to drift between releases):
a text's char n-grams and words are counted into fixed buckets, weighted by sublinear tf x idf and L2-normalised
together. The n-gram hash is a rolling polynomial over code points finished by the splitmix64 mixer, computed
for the whole text at once with numpy (a text costs a few array operations, not one call per n-gram); words
are hashed with CRC-32. Both are fixed functions: the same text gives the same buckets in every process. The
nine lexicon category scores follow as dense columns, so the model can learn how far to trust the rules on each
kind of text, and eleven cue flags (a request, stealth, a report, a protective question ...).
"""

from __future__ import annotations

import logging
import re
import zlib
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse

from rules.safety.pack import CATEGORIES, CUE_NAMES, SafetyPack, load_safety_pack
from rules.safety.scorer import SafetyAssessment, matching_text, safety_score

CHAR_BUCKETS = 2**18
WORD_BUCKETS = 2**16
N_TEXT_FEATURES = CHAR_BUCKETS + WORD_BUCKETS
N_LEXICON_FEATURES = len(CATEGORIES) + len(CUE_NAMES)
N_FEATURES = N_TEXT_FEATURES + N_LEXICON_FEATURES
# Lexicon scores sit beside ~300K n-gram buckets whose L2-normalised weights are each small; at 1.0 a category
# score of 0.9 weighs about as much as the whole n-gram vector, which lets the rules speak without drowning it.
LEXICON_SCALE = 1.0
# Whether each context cue (a request, stealth, a report, a protective question ...) occurs in the text: the
# difference between asking how to do a harm and asking how to guard against it, which n-grams blur.
CUE_SCALE = 0.5


_CATEGORY_COLUMNS = {category: index for index, category in enumerate(CATEGORIES)}
_CUE_COLUMNS = {cue: len(CATEGORIES) + index for index, cue in enumerate(CUE_NAMES)}


@lru_cache(maxsize=1)
def _tokenizer() -> object:
    """jieba's default tokenizer, loaded once and quietly (its dictionary ships in the package)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def jieba_words(text: str) -> list[str]:
    """jieba's dictionary words of `text` (no HMM guessing of unknown words), without whitespace tokens."""
    return [word for word in _tokenizer().lcut(text, HMM=False) if word.strip()]  # type: ignore[attr-defined]


CHAR_NGRAMS = (1, 4)
_WHITESPACE = re.compile(r"\s\s+")
_MULTIPLIER = np.uint64(0x100000001B3)  # FNV-1a 64-bit prime: spreads each code point over the word
_MIX_1, _MIX_2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def _mixed(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit affects every output bit."""
    values = values ^ (values >> np.uint64(30))
    values = values * _MIX_1
    values = values ^ (values >> np.uint64(27))
    values = values * _MIX_2
    return values ^ (values >> np.uint64(31))


def char_buckets(text: str) -> np.ndarray:
    """The bucket of every character n-gram (lengths CHAR_NGRAMS) of `text`, whitespace runs collapsed first."""
    text = _WHITESPACE.sub(" ", text)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    pieces, rolling = [], np.zeros(len(codes), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for n in range(1, CHAR_NGRAMS[1] + 1):
            if len(codes) < n:
                break
            # rolling[i] holds the hash of codes[i : i + n]: extend each (n-1)-gram by the code point after it.
            rolling = rolling[: len(codes) - n + 1] * _MULTIPLIER + codes[n - 1 :]
            if n >= CHAR_NGRAMS[0]:
                pieces.append(_mixed(rolling ^ np.uint64(n)) % np.uint64(CHAR_BUCKETS))
    return np.concatenate(pieces).astype(np.int64) if pieces else np.zeros(0, dtype=np.int64)


def word_buckets(text: str) -> np.ndarray:
    """The bucket of every jieba word of `text` (CRC-32 of its UTF-8 bytes)."""
    words = jieba_words(text)
    return np.array([zlib.crc32(word.encode("utf-8")) % WORD_BUCKETS for word in words], dtype=np.int64)


def text_terms(text: str) -> tuple[np.ndarray, np.ndarray]:
    """One text's hashed buckets (char n-grams, then words after them) and their counts, on its matching text."""
    prepared = matching_text(text)
    buckets = np.concatenate([char_buckets(prepared), word_buckets(prepared) + CHAR_BUCKETS])
    indices, counts = np.unique(buckets, return_counts=True)
    return indices, counts.astype(np.float64)


def text_counts(texts: Sequence[str]) -> sparse.csr_matrix:
    """Raw hashed counts of every text, one row per text (`text_terms` stacked)."""
    indptr, indices, data = [0], [], []
    for text in texts:
        columns, counts = text_terms(text)
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


def lexicon_row(assessment: SafetyAssessment) -> np.ndarray:
    """The lexicon's view of one text: category scores (CATEGORIES order), then scaled cue presence (CUE_NAMES)."""
    values = np.zeros(N_LEXICON_FEATURES)
    for category, score in assessment.categories.items():
        values[_CATEGORY_COLUMNS[category]] = score * LEXICON_SCALE
    for cue in assessment.cues:
        values[_CUE_COLUMNS[cue]] = CUE_SCALE
    return values


def lexicon_scores(texts: Sequence[str], pack: SafetyPack | None = None) -> np.ndarray:
    """`lexicon_row` of every text, one row per text."""
    pack = pack or load_safety_pack()
    values = np.zeros((len(texts), N_LEXICON_FEATURES))
    for row, text in enumerate(texts):
        values[row] = lexicon_row(safety_score(text, pack=pack))
    return values


def feature_matrix(counts: sparse.csr_matrix, idf: np.ndarray, lexicon: np.ndarray) -> sparse.csr_matrix:
    """The model's input: weighted n-grams and words, then the lexicon's scaled scores and cues."""
    return sparse.hstack([text_weights(counts, idf), sparse.csr_matrix(lexicon)], format="csr")
