"""Cantonese detection per clause (weighted marker density) and rewriting of Cantonese clauses into Mandarin.

A text is cut into sentences (。！？； and line ends) and these into clauses (，：、). A clause is Cantonese when
the marker density of the clause, or of its sentence, reaches CANTONESE_THRESHOLD; only Cantonese clauses are
rewritten. Quoted material (“…” ‘…’ 《…》) counts for nothing in its sentence and is rewritten only inside a
Cantonese sentence (or when the sentence is nothing but the quotation), so a Mandarin contract that quotes a
Cantonese shop name or phrase is left alone while a Cantonese ticket's reported speech is rewritten.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from rules.normalize.dialect_lexicon import (
    DATA,
    MINED_FILE,
    Lexicon,
    LexiconEntry,
    load_lexicon,
    read_table,
    script_forms,
)
from rules.normalize.offsets import Edit
from rules.term_search import TermIndex

__all__ = ["CANTONESE_THRESHOLD", "cantonese_regions", "cantonese_score", "dialect_edits", "is_cantonese"]
__all__ += ["Lexicon", "LexiconEntry", "load_lexicon"]

MARKERS_FILE = DATA / "cantonese_markers.tsv"
# Weighted markers per character of a clause or sentence, short ones counted as at least _MIN_LENGTH long so
# that one weak marker in a two-character fragment does not decide alone: one sure marker per 25 characters.
CANTONESE_THRESHOLD = 0.04
_MIN_LENGTH = 10
MINED_KEY_WEIGHT = 0.35
_SINGLE_MARKER_LENGTH = 20
_SENTENCE = re.compile("[^。！？；!?;\n]*[。！？；!?;\n]?")
_CLAUSE_BREAK = re.compile("[，：、,:]")
_QUOTE = re.compile("“[^”\n]*”|‘[^’\n]*’|《[^》\n]*》|「[^」\n]*」|『[^』\n]*』")
_LOCATIVE = re.compile("[在喺]")
_LOCATIVE_BREAK = re.compile("[，。！？；：,.!?;:\n]")
Span = tuple[int, int]


@cache
def _markers() -> tuple[TermIndex[float], re.Pattern[str]]:
    """The markers in both scripts with their weights, and a class of their first characters."""
    _, rows = read_table(MARKERS_FILE)
    weights: dict[str, float] = {}
    for marker, weight in rows:
        for form in script_forms(marker):
            weights.setdefault(form, float(weight))
    # The mined table's keys are words Mandarin does not use (the build drops the others): weak evidence each.
    _, mined_rows = read_table(MINED_FILE)
    for row in mined_rows:
        for form in script_forms(row[0]):
            weights.setdefault(form, MINED_KEY_WEIGHT)
    first_chars = re.compile("[" + "".join(map(re.escape, dict.fromkeys(form[0] for form in weights))) + "]")
    return TermIndex(weights.items()), first_chars


def _marker_hits(text: str) -> tuple[list[int], list[float]]:
    """Start positions (sorted) and weights of every marker occurrence; empty at once for marker-free text."""
    index, first_chars = _markers()
    if first_chars.search(text) is None:  # a one-class scan: most texts hold no marker at all
        return [], []
    hits = sorted((start, index.values[number]) for number, start, _ in index.occurrences(text))
    return [start for start, _ in hits], [weight for _, weight in hits]


class _Weights:
    """Prefix sums of marker weight over positions: the weight inside any span in two bisections."""

    def __init__(self, text: str) -> None:
        self.starts, weights = _marker_hits(text)
        self.cumulative = [0.0]
        for weight in weights:
            self.cumulative.append(self.cumulative[-1] + weight)

    def within(self, start: int, end: int) -> float:
        """Total weight of the markers starting in [start, end)."""
        if not self.starts:
            return 0.0
        return self.cumulative[bisect_left(self.starts, end)] - self.cumulative[bisect_left(self.starts, start)]


def _density(weight: float, length: int) -> float:
    """Marker weight per character of a sentence; one sure marker alone in a long one reads as a name or a loan."""
    if length > _SINGLE_MARKER_LENGTH and weight < 2.0:
        return 0.0
    return weight / max(length, _MIN_LENGTH)


def _clause_density(weight: float, length: int) -> float:
    """A clause decides alone only on two markers' weight: one could be a name (陈啲明) in a Mandarin sentence."""
    return weight / max(length, _MIN_LENGTH) if weight >= 2.0 else 0.0


def _clauses(text: str, start: int, end: int) -> Iterator[Span]:
    """The clauses of text[start:end], each with its closing mark."""
    clause_start = start
    for mark in _CLAUSE_BREAK.finditer(text, start, end):
        yield clause_start, mark.end()
        clause_start = mark.end()
    if clause_start < end:
        yield clause_start, end


class _Sentence(NamedTuple):
    """A sentence, its quotations, and the marker density of what lies outside them."""

    start: int
    end: int
    quotes: list[Span]
    density: float


def _sentences(text: str, weights: _Weights) -> list[_Sentence]:
    """The sentences of the text, each with its own density (quotations left out of it)."""
    sentences: list[_Sentence] = []
    for match in _SENTENCE.finditer(text):
        start, end = match.span()
        if start == end:
            continue
        if weights.within(start, end) == 0:
            sentences.append(_Sentence(start, end, [], 0.0))
            continue
        quotes = [quote.span() for quote in _QUOTE.finditer(text, start, end)]
        quoted_weight = sum(weights.within(*quote) for quote in quotes)
        quoted_length = sum(quote_end - quote_start for quote_start, quote_end in quotes)
        density = _density(weights.within(start, end) - quoted_weight, end - start - quoted_length)
        sentences.append(_Sentence(start, end, quotes, density))
    return sentences


def _supported(text: str, sentences: list[_Sentence], index: int) -> float:
    """A sentence's density, or for a short one (好啦！) the higher density of its neighbours on the same line."""
    sentence = sentences[index]
    if sentence.end - sentence.start > _MIN_LENGTH:
        return sentence.density
    density = sentence.density
    if index > 0 and text[sentence.start - 1] != "\n":
        density = max(density, sentences[index - 1].density)
    if index + 1 < len(sentences) and text[sentence.end - 1] != "\n":
        density = max(density, sentences[index + 1].density)
    return density


def _scored_units(text: str) -> Iterator[tuple[Span, float]]:
    """Every clause and quotation of the text with the density that decides whether it is rewritten."""
    weights = _Weights(text)
    if not weights.starts:
        return
    sentences = _sentences(text, weights)
    for index, sentence in enumerate(sentences):
        sentence_density = _supported(text, sentences, index)
        if sentence_density == 0 and weights.within(sentence.start, sentence.end) == 0:
            continue
        outside_length = sentence.end - sentence.start - sum(end - start for start, end in sentence.quotes)
        for clause_start, clause_end in _outside(sentence.start, sentence.end, sentence.quotes):
            for clause in _clauses(text, clause_start, clause_end):
                own = _clause_density(weights.within(*clause), clause[1] - clause[0])
                yield clause, max(own, sentence_density)
        for quote in sentence.quotes:
            # A quotation speaks for itself only when the sentence around it is (almost) nothing else.
            alone = outside_length <= 3
            own = _density(weights.within(*quote), quote[1] - quote[0]) if alone else 0.0
            yield quote, max(own, sentence_density)


def _outside(start: int, end: int, quotes: list[Span]) -> Iterator[Span]:
    """The parts of [start, end) between the quotations."""
    position = start
    for quote_start, quote_end in quotes:
        if quote_start > position:
            yield position, quote_start
        position = quote_end
    if position < end:
        yield position, end


def cantonese_regions(text: str) -> list[Span]:
    """Sorted, merged spans of the clauses (and quotations) that read as Cantonese."""
    spans = sorted(span for span, density in _scored_units(text) if density >= CANTONESE_THRESHOLD)
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def cantonese_score(text: str) -> float:
    """The marker density of the most Cantonese clause (or sentence) of the text; 0.0 for Mandarin."""
    return max((density for _, density in _scored_units(text)), default=0.0)


def is_cantonese(score: float) -> bool:
    """True when a cantonese_score says some clause is Cantonese, so the dialect rewrite has work to do."""
    return score >= CANTONESE_THRESHOLD


def _fitting(text: str, start: int, end: int, entries: tuple[LexiconEntry, ...]) -> str | None:
    """The Mandarin of the first entry whose context holds around text[start:end], or None."""
    for entry in entries:
        if entry.fits(text, start, end):
            return entry.mandarin
    return None


def _segment(text: str, keys_at: dict[int, list[tuple[int, tuple[LexiconEntry, ...]]]]) -> Iterator[Edit]:
    """The keys to rewrite: the most Cantonese characters covered, then the fewest keys (longest ones).

    A dynamic programme over the key positions, right to left; on a tie the later key wins, which reads 去街市
    as 去 + 街市 (market), not 去街 (go out) + 市.
    """
    positions = sorted(keys_at)
    best: list[tuple[int, int]] = [(0, 0)] * (len(positions) + 1)  # (covered, -keys) from positions[i] on
    choice: list[tuple[int, str, int] | None] = [None] * len(positions)  # (end, mandarin, next index)
    for index in range(len(positions) - 1, -1, -1):
        start = positions[index]
        best[index] = best[index + 1]
        for end, entries in keys_at[start]:
            mandarin = _fitting(text, start, end, entries)
            if mandarin is None:
                continue
            following = bisect_left(positions, end, index + 1)
            value = (best[following][0] + end - start, best[following][1] - 1)
            if value > best[index]:
                best[index] = value
                choice[index] = (end, mandarin, following)
    index = 0
    while index < len(positions):
        chosen = choice[index]
        if chosen is None:
            index += 1
            continue
        end, mandarin, following = chosen
        yield positions[index], end, mandarin
        index = following


def region_edits(text: str, start: int, end: int, lexicon: Lexicon) -> Iterator[Edit]:
    """Edits for text[start:end] (see _segment), contexts read from the whole text."""
    keys_at: dict[int, list[tuple[int, tuple[LexiconEntry, ...]]]] = {}
    for number, key_start, key_end in lexicon.index.occurrences(text[start:end]):
        keys_at.setdefault(start + key_start, []).append((start + key_end, lexicon.index.values[number]))
    for key_start, key_end, mandarin in _segment(text, keys_at):
        # 喺广州用紧 already says 在 once: 在广州用, not 在广州在用
        if (
            mandarin.startswith("在")
            and text[key_end - 1] in "緊紧"
            and _LOCATIVE.search(_LOCATIVE_BREAK.split(text[max(0, key_start - 40) : key_start])[-1])
        ):
            mandarin = mandarin[1:]
        yield key_start, key_end, mandarin


def dialect_edits(text: str) -> list[Edit]:
    """Edits replacing Cantonese wording by Mandarin in the Cantonese clauses of the text only."""
    regions = cantonese_regions(text)
    if not regions:
        return []
    lexicon = load_lexicon()
    return [edit for start, end in regions for edit in region_edits(text, start, end, lexicon)]
