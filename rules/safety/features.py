"""Features of the learned safety classifier: hashed character 1-4-grams and jieba words (`rules.feature_hashing`) of
the text's matching form, plus the lexicon's scores.

The nine lexicon category scores follow the hashed buckets as dense columns, so the model can learn how far to
trust the rules on each kind of text, and eleven cue flags (a request, stealth, a report, a protective question ...).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse

from rules.feature_hashing import N_TEXT_FEATURES, counts_matrix, hashed_terms, text_weights
from rules.safety.pack import CATEGORIES, CUE_NAMES, SafetyPack, load_safety_pack
from rules.safety.scorer import SafetyAssessment, matching_text, safety_score

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


def text_terms(text: str) -> tuple[np.ndarray, np.ndarray]:
    """One text's hashed buckets (char n-grams, then words after them) and their counts, on its matching text."""
    return hashed_terms(matching_text(text))


def text_counts(texts: Sequence[str]) -> sparse.csr_matrix:
    """Raw hashed counts of every text, one row per text (`text_terms` stacked)."""
    return counts_matrix(texts, text_terms)


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
