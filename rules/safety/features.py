"""Features of the learned safety classifier: hashed character 1-4-grams and jieba words, plus the lexicon's scores.

Hashing keeps the model free of a vocabulary (small, no pickled estimators, nothing to drift between releases):
a text's char n-grams and words are counted into fixed buckets, weighted by sublinear tf x idf and L2-normalised
together; the nine lexicon category scores follow as dense columns, so the model can learn how far to trust
the rules on each kind of text, and eleven cue flags (a request, stealth, a report, a protective question ...).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse
from sklearn.feature_extraction.text import HashingVectorizer

from rules.safety.pack import CATEGORIES, CUE_NAMES, SafetyPack, load_safety_pack
from rules.safety.scorer import matching_text, safety_score

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


@lru_cache(maxsize=1)
def _tokenizer() -> object:
    """jieba's default tokenizer, loaded once and quietly (its dictionary ships in the package)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    return tokenizer


def jieba_words(text: str) -> list[str]:
    """jieba's words of `text`, without whitespace tokens (module-level: the vectorizer calls it)."""
    return [word for word in _tokenizer().lcut(text) if word.strip()]  # type: ignore[attr-defined]


_CHARS = HashingVectorizer(
    analyzer="char", ngram_range=(1, 4), n_features=CHAR_BUCKETS, alternate_sign=False, norm=None, lowercase=False
)
_WORDS = HashingVectorizer(
    analyzer=jieba_words, n_features=WORD_BUCKETS, alternate_sign=False, norm=None, lowercase=False
)


def text_counts(texts: Sequence[str]) -> sparse.csr_matrix:
    """Raw hashed counts (char n-grams, then words) of the texts as matched by the lexicon."""
    prepared = [matching_text(text) for text in texts]
    return sparse.hstack([_CHARS.transform(prepared), _WORDS.transform(prepared)], format="csr", dtype=np.float64)


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


def lexicon_scores(texts: Sequence[str], pack: SafetyPack | None = None) -> np.ndarray:
    """The lexicon's view of each text: category scores (CATEGORIES order), then scaled cue presence (CUE_NAMES)."""
    pack = pack or load_safety_pack()
    columns = {category: index for index, category in enumerate(CATEGORIES)}
    cue_columns = {cue: len(CATEGORIES) + index for index, cue in enumerate(CUE_NAMES)}
    values = np.zeros((len(texts), N_LEXICON_FEATURES))
    for row, text in enumerate(texts):
        assessment = safety_score(text, pack=pack)
        for category, score in assessment.categories.items():
            values[row, columns[category]] = score * LEXICON_SCALE
        for cue in assessment.cues:
            values[row, cue_columns[cue]] = CUE_SCALE
    return values


def feature_matrix(counts: sparse.csr_matrix, idf: np.ndarray, lexicon: np.ndarray) -> sparse.csr_matrix:
    """The model's input: weighted n-grams and words, then the lexicon's scaled scores and cues."""
    return sparse.hstack([text_weights(counts, idf), sparse.csr_matrix(lexicon)], format="csr")
