"""Where a text is Cantonese: weighted marker density per sentence and clause, quotations judged by their sentence.

A text is cut into sentences (。！？； and line ends) and these into clauses (，：、). A clause is Cantonese when
the marker density of the clause, or of its sentence, reaches CANTONESE_THRESHOLD. Markers are the weighted words
of `cantonese_markers.tsv` (sentence-final particles count only where no Chinese character follows them); one sure
marker alone decides a short sentence only, a long one when other evidence corroborates it. The mined lexicon's
keys (words Mandarin does not use) add weak evidence, but only in the sentences that hold a marker and their
neighbours, so a text without any marker costs one character-class scan. Quoted material (“…” ‘…’ 《…》) counts
for nothing in its sentence and is Cantonese only inside a Cantonese sentence (or when the sentence is nothing
but the quotation): a Mandarin contract quoting a Cantonese shop name is left alone, a Cantonese ticket's
reported speech is rewritten.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from functools import cache
from typing import NamedTuple

from ahocorasick_rs import Implementation

from rules.normalize.chars import CJK
from rules.normalize.dialect_lexicon import DATA, MINED_FILE, read_table, script_forms
from rules.term_search import TermIndex

MARKERS_FILE = DATA / "cantonese_markers.tsv"
# Weighted markers per character of a clause or sentence, short ones counted as at least _MIN_LENGTH long so
# that one weak marker in a two-character fragment does not decide alone: one sure marker per 25 characters.
CANTONESE_THRESHOLD = 0.04
_MIN_LENGTH = 10
# One sure marker alone in a sentence longer than this, or in a clause, reads as a name or a loanword.
_SINGLE_MARKER_LENGTH = 20
_TWO_MARKERS = 2.0
# A sure marker corroborated by a weaker one (a sentence-final particle, a mined key) decides a long sentence.
_CORROBORATED = 1.4
MINED_KEY_WEIGHT = 0.35
_SENTENCE_END_MARKS = "。！？；!?;\n"
_SENTENCE_END = re.compile(f"[{_SENTENCE_END_MARKS}]")
_LOOKBACK = 400
_CLAUSE_BREAK = re.compile("[，：、,:]")
_QUOTE = re.compile("“[^”\n]*”|‘[^’\n]*’|《[^》\n]*》|「[^」\n]*」|『[^』\n]*』")
# A sentence end before the last character, or an opening quotation mark (one at the very end quotes nothing).
_ONE_SENTENCE_BREAK = re.compile(f"[{_SENTENCE_END_MARKS}“‘《「『]")
Span = tuple[int, int]


class _Markers(NamedTuple):
    """The markers (both scripts) as one longest-first pattern with their weights, and the mined keys' index."""

    pattern: re.Pattern[str]
    first_chars: re.Pattern[str]
    weights: dict[str, float]
    mined: TermIndex[float]


@cache
def _markers() -> _Markers:
    """Read the markers and the mined keys (a few dozen markers: one regex beats an automaton's set-up per text).

    A marker marked `final` counts only where no Chinese character follows it: a sentence-final particle (走啦！),
    not the same character inside a Mandarin word (喇叭).
    """
    _, rows = read_table(MARKERS_FILE)
    weights: dict[str, float] = {}
    final: set[str] = set()
    for marker, weight, *flags in rows:
        for form in script_forms(marker):
            if form not in weights:
                weights[form] = float(weight)
                if "final" in flags:
                    final.add(form)
    ordered = sorted(weights, key=len, reverse=True)
    first_chars = re.compile("[" + "".join(map(re.escape, dict.fromkeys(form[0] for form in ordered))) + "]")
    _, mined_rows = read_table(MINED_FILE)
    mined = {form: MINED_KEY_WEIGHT for row in mined_rows for form in script_forms(row[0]) if form not in weights}
    alternatives = [re.escape(form) + (f"(?![{CJK}])" if form in final else "") for form in ordered]
    return _Markers(
        re.compile("|".join(alternatives)),
        first_chars,
        weights,
        TermIndex(mined.items(), Implementation.ContiguousNFA),
    )


class _Weights:
    """Prefix sums of evidence weight over positions: the weight inside any span in two bisections."""

    def __init__(self, hits: list[tuple[int, float]]) -> None:
        hits.sort()
        self.starts = [start for start, _ in hits]
        self.cumulative = [0.0]
        for _, weight in hits:
            self.cumulative.append(self.cumulative[-1] + weight)

    def within(self, start: int, end: int) -> float:
        """Total weight of the evidence starting in [start, end)."""
        return self.cumulative[bisect_left(self.starts, end)] - self.cumulative[bisect_left(self.starts, start)]


class _Sentence(NamedTuple):
    """A sentence, its quotations, and the evidence density of what lies outside them."""

    start: int
    end: int
    quotes: list[Span]
    density: float


def _density(weight: float, length: int) -> float:
    """Evidence weight per character of a sentence (see _SINGLE_MARKER_LENGTH and _CORROBORATED)."""
    if length > _SINGLE_MARKER_LENGTH and weight < _CORROBORATED:
        return 0.0
    return weight / max(length, _MIN_LENGTH)


def _clause_density(weight: float, length: int) -> float:
    """A clause decides alone only on two markers' weight: one could be a name (陈啲明) in a Mandarin sentence."""
    return weight / max(length, _MIN_LENGTH) if weight >= _TWO_MARKERS else 0.0


def _sentence(text: str, start: int, end: int, weights: _Weights) -> _Sentence:
    quotes = [quote.span() for quote in _QUOTE.finditer(text, start, end)]
    quoted_weight = sum(weights.within(*quote) for quote in quotes)
    quoted_length = sum(quote_end - quote_start for quote_start, quote_end in quotes)
    density = _density(weights.within(start, end) - quoted_weight, end - start - quoted_length)
    return _Sentence(start, end, quotes, density)


def _sentence_bounds(text: str, position: int) -> Span:
    """The sentence holding `position` (a sentence longer than _LOOKBACK before it starts _LOOKBACK back)."""
    found = _SENTENCE_END.search(text, position)
    end = found.end() if found else len(text)
    lookback = max(0, position - _LOOKBACK)
    # The last sentence end before `position`: one backward C scan per mark, not every match of the window.
    last = max(text.rfind(mark, lookback, position) for mark in _SENTENCE_END_MARKS)
    return (last + 1 if last >= 0 else lookback), end


def _marker_hits(text: str) -> list[tuple[int, float]]:
    """(start, weight) of every marker in the text, in order."""
    markers = _markers()
    first = markers.first_chars.search(text)  # a one-class scan: most texts hold no marker at all
    if first is None:
        return []
    weight = markers.weights
    return [(match.start(), weight[match.group()]) for match in markers.pattern.finditer(text, first.start())]


def _one_sentence_density(text: str, marker_hits: list[tuple[int, float]]) -> float | None:
    """The density of a short text of one sentence without quotation marks when it decides alone: at least
    CANTONESE_THRESHOLD, or 0.0 for Mandarin; None when its clauses must decide.

    Most Cantonese tickets and chat lines are such a sentence: one automaton pass and a sum, no bounds to find.
    """
    mined = _markers().mined
    found = mined.occurrences(text)
    if found:
        values = mined.values
        hits = marker_hits + [(at, values[key]) for key, at, _ in found]
        hits.sort()
    else:
        hits = marker_hits  # the markers' own order: by position, as a sort would leave them
    total = 0.0
    for _, weight in hits:  # in position order, as _Weights adds them: the same float
        total += weight
    density = _density(total, len(text))
    if density >= CANTONESE_THRESHOLD:
        return density
    return 0.0 if total < _TWO_MARKERS else None


def _is_one_sentence(text: str) -> bool:
    """True for a text short enough for _one_sentence_density with no sentence break before its last character."""
    return len(text) <= _LOOKBACK and not _ONE_SENTENCE_BREAK.search(text, 0, len(text) - 1)


def _one_sentence_units(text: str, marker_hits: list[tuple[int, float]]) -> tuple[tuple[Span, float], ...] | None:
    """_units for a short text of one sentence without quotation marks, or None when its clauses must decide."""
    density = _one_sentence_density(text, marker_hits)
    if density is None:
        return None
    return (((0, len(text)), density),) if density else ()


def _candidate_sentences(text: str, marker_hits: list[tuple[int, float]]) -> tuple[dict[int, _Sentence], _Weights]:
    """The sentences holding a marker and their neighbours (by start), with the evidence weights.

    Sentence bounds are found around the markers only, so a long Mandarin text with one marker costs little.
    """
    mined = _markers().mined
    spans: set[Span] = set()
    done = -1
    for position, _ in marker_hits:
        if position < done:
            continue
        start, done = _sentence_bounds(text, position)
        spans.add((start, done))
        if start > 0:
            spans.add(_sentence_bounds(text, start - 1))
        if done < len(text):
            spans.add(_sentence_bounds(text, done))
    hits = marker_hits
    for start, end in spans:
        hits += [(start + at, mined.values[key]) for key, at, _ in mined.occurrences(text[start:end])]
    weights = _Weights(hits)
    return {start: _sentence(text, start, end, weights) for start, end in spans}, weights


def _supported(text: str, sentences: dict[int, _Sentence], ending_at: dict[int, _Sentence], start: int) -> float:
    """A sentence's density, or for a short one (好啦！) the higher density of its neighbours on the same line."""
    sentence = sentences[start]
    if sentence.end - sentence.start > _MIN_LENGTH:
        return sentence.density
    density = sentence.density
    after = sentences.get(sentence.end)
    if after is not None and text[sentence.end - 1] != "\n":
        density = max(density, after.density)
    before = ending_at.get(sentence.start)
    if before is not None and text[sentence.start - 1] != "\n":
        density = max(density, before.density)
    return density


def _clauses(text: str, start: int, end: int) -> Iterator[Span]:
    """The clauses of text[start:end], each with its closing mark."""
    clause_start = start
    for mark in _CLAUSE_BREAK.finditer(text, start, end):
        yield clause_start, mark.end()
        clause_start = mark.end()
    if clause_start < end:
        yield clause_start, end


def _outside(start: int, end: int, quotes: list[Span]) -> Iterator[Span]:
    """The parts of [start, end) between the quotations."""
    position = start
    for quote_start, quote_end in quotes:
        if quote_start > position:
            yield position, quote_start
        position = quote_end
    if position < end:
        yield position, end


def _scored_units(text: str) -> tuple[tuple[Span, float], ...]:
    """The clauses and quotations near Cantonese evidence, with the density that decides whether they are."""
    marker_hits = _marker_hits(text)
    if not marker_hits:
        return ()
    if _is_one_sentence(text):
        units = _one_sentence_units(text, marker_hits)
        if units is not None:
            return units
    return tuple(_units(text, *_candidate_sentences(text, marker_hits)))


def _units(text: str, sentences: dict[int, _Sentence], weights: _Weights) -> Iterator[tuple[Span, float]]:
    """A Cantonese sentence as one unit, quotations included; in another, its clauses and lone quotation."""
    ending_at = {sentence.end: sentence for sentence in sentences.values()}
    for start in sorted(sentences):
        sentence = sentences[start]
        density = _supported(text, sentences, ending_at, start)
        if density >= CANTONESE_THRESHOLD:
            yield (sentence.start, sentence.end), density
            continue
        outside_length = sentence.end - sentence.start - sum(end - start for start, end in sentence.quotes)
        if weights.within(sentence.start, sentence.end) >= _TWO_MARKERS:  # else no clause decides alone
            for part_start, part_end in _outside(sentence.start, sentence.end, sentence.quotes):
                for clause in _clauses(text, part_start, part_end):
                    yield clause, max(_clause_density(weights.within(*clause), clause[1] - clause[0]), density)
        if outside_length <= 3:  # a quotation speaks for itself when the sentence is (almost) nothing else
            for quote in sentence.quotes:
                yield quote, max(_density(weights.within(*quote), quote[1] - quote[0]), density)


class CantoneseReading(NamedTuple):
    """One detection pass: the score of the most Cantonese clause and the regions that read as Cantonese."""

    score: float
    regions: tuple[Span, ...]


def _merged_regions(units: tuple[tuple[Span, float], ...]) -> list[Span]:
    """Sorted, merged spans of the units dense enough to be Cantonese."""
    spans = sorted(span for span, density in units if density >= CANTONESE_THRESHOLD)
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def read_cantonese(text: str) -> CantoneseReading:
    """Score and regions from one detection pass (the pipeline needs both: the score picks the script config)."""
    marker_hits = _marker_hits(text)
    if not marker_hits:
        return _MANDARIN
    if _is_one_sentence(text):  # _scored_units' shortcut, without building its units
        density = _one_sentence_density(text, marker_hits)
        if density is not None:
            return _reading(CantoneseReading, (density, ((0, len(text)),))) if density else _MANDARIN
    units = tuple(_units(text, *_candidate_sentences(text, marker_hits)))
    if not units:
        return _MANDARIN
    return CantoneseReading(max(density for _, density in units), tuple(_merged_regions(units)))


_MANDARIN = CantoneseReading(0.0, ())
# A NamedTuple's constructor is a Python function; tuple.__new__ makes the same object in C (one per Cantonese text).
_reading = tuple.__new__


def cantonese_regions(text: str) -> list[Span]:
    """Sorted, merged spans of the clauses (and quotations) that read as Cantonese."""
    return _merged_regions(_scored_units(text))


def cantonese_score(text: str) -> float:
    """The evidence density of the most Cantonese clause (or sentence) of the text; 0.0 for Mandarin."""
    return max((density for _, density in _scored_units(text)), default=0.0)


@cache
def marker_chars() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """What a prescan needs to tell that a text holds no marker: the one-character markers, the first characters
    of the longer ones and their second characters (a text without a one-character marker and without a first
    character followed by a second one has none)."""
    weights = _markers().weights
    singles = frozenset(marker for marker in weights if len(marker) == 1)
    firsts = frozenset(marker[0] for marker in weights if len(marker) > 1)
    seconds = frozenset(marker[1] for marker in weights if len(marker) > 1)
    return singles, firsts, seconds


def is_cantonese(score: float) -> bool:
    """True when a cantonese_score says some clause is Cantonese, so the dialect rewrite has work to do."""
    return score >= CANTONESE_THRESHOLD
