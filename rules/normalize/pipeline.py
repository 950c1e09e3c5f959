"""normalize(): canonical, simplified, Mandarin text for matching, with an offset map back to the original."""

from __future__ import annotations

import re
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from functools import cache, cached_property
from types import ModuleType
from typing import Any

from rules.normalize import compiled
from rules.normalize.canonical import CANONICAL_TRIGGER, FOLD_CHARS, fold, whitespace_edits
from rules.normalize.chars import char_class
from rules.normalize.dialect import (
    CANTONESE_THRESHOLD,
    CantoneseReading,
    dialect_edits,
    load_lexicon,
    read_cantonese,
    region_edits,
)
from rules.normalize.dialect_detect import marker_chars
from rules.normalize.offsets import Edit, StepMap, apply_edits, compose_span
from rules.normalize.punctuation import PUNCTUATION_MARK_SET, PUNCTUATION_MARKS, punctuation_step, unmarked_edits
from rules.normalize.script import NO_CONVERSION, simplified_step, traditional_chars


@dataclass(frozen=True)
class NormalizeReport:
    """What normalization changed; `as_dict()` is stored with the job as JSON."""

    original_length: int
    normalized_length: int
    script_config: str
    cantonese_score: float
    is_cantonese: bool
    lexicon_id: str
    lexicon_version: str
    invalid_replaced: int
    controls_replaced: int
    invisible_removed: int
    line_ends_unified: int
    width_folds: int
    ideographs_folded: int  # Kangxi / supplement radicals and compatibility ideographs made unified ideographs
    punctuation_folds: int
    spaces_removed: int
    lines_joined: int
    dialect_replacements: int

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a plain JSON-ready dict."""
        return asdict(self)


# What the steps counted, turned into a NormalizeReport only when someone reads the report: counts by kind, script
# config, Cantonese score, is Cantonese, punctuation folds, dialect replacements. A plain tuple: a NamedTuple's
# constructor is a Python function, and every document pays it.
_Facts = tuple[dict[str, int], str, float, bool, int, int]


@dataclass(frozen=True)
class NormalizedText:
    """Normalized text, the maps of the steps that moved characters, and the report (built on first read)."""

    text: str
    original_length: int
    steps: tuple[StepMap, ...]
    facts: _Facts = field(repr=False, compare=False)

    @cached_property
    def report(self) -> NormalizeReport:
        """What normalization changed (see NormalizeReport)."""
        counts, script_config, cantonese_score, cantonese, punctuation_folds, dialect_replacements = self.facts
        lexicon = load_lexicon()
        return NormalizeReport(
            original_length=self.original_length,
            normalized_length=len(self.text),
            script_config=script_config,
            cantonese_score=round(cantonese_score, 4),
            is_cantonese=cantonese,
            lexicon_id=lexicon.lexicon_id,
            lexicon_version=lexicon.version,
            invalid_replaced=counts.get("invalid", 0),
            controls_replaced=counts.get("control", 0),
            invisible_removed=counts.get("invisible", 0),
            line_ends_unified=counts.get("crlf", 0) + counts.get("linesep", 0),
            width_folds=counts.get("width", 0),
            ideographs_folded=counts.get("ideograph", 0),
            punctuation_folds=punctuation_folds,
            spaces_removed=counts.get("spaces_removed", 0),
            lines_joined=counts.get("lines_joined", 0),
            dialect_replacements=dialect_replacements,
        )

    @classmethod
    def built(cls, text: str, original_length: int, steps: tuple[StepMap, ...], facts: _Facts) -> NormalizedText:
        """The same object as the constructor makes, without a frozen dataclass's object.__setattr__ per field
        (for a short text these four calls cost as much as a step)."""
        result = object.__new__(cls)
        result.__dict__.update(text=text, original_length=original_length, steps=steps, facts=facts)
        return result

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Return the smallest original span covering normalized span [start, end) (clamped to range)."""
        return compose_span(self.steps, start, end, len(self.text))


# Texts of a ticket's length pay one prescan instead of several scans; a short text pays more for the set
# operations than it saves, and a long one (a contract's thousands of blanks and ideographic spaces) for the list.
_PRESCAN_FROM = 64
_PRESCAN_UP_TO = 2048


@cache
def _prescan_chars() -> tuple[set[str], list[str], frozenset[str]]:
    """The prescan's BMP characters: those found wherever they are (folds, punctuation marks, traditional
    characters, one-character markers), a marker's first character found only when a second one follows, past
    the spaces and line breaks the whitespace step may remove (a common character such as 而 or 点 is found only
    where it can start a marker), and the markers' second characters."""
    singles, firsts, seconds = marker_chars()
    always = {char for char in (*FOLD_CHARS, *PUNCTUATION_MARKS, *traditional_chars(), *singles) if char < "\U00010000"}
    paired = [char for char in firsts if char < "\U00010000" and char not in always]
    return always, paired, seconds


@cache
def _prescan() -> tuple[re.Pattern[str], frozenset[str]]:
    """One class of every character that makes a step work (see _prescan_chars), digits followed by a full-width
    mark and a digit, and (in one range: the engine tests characters outside the BMP item by item) all characters
    outside the BMP; with the characters that can start a marker (none of them found: detection has nothing to
    read)."""
    singles, firsts, seconds = marker_chars()
    always, paired, _ = _prescan_chars()
    conditions = [f"(?<!{char_class([*'0123456789', *paired])})", "(?<=[0-9])(?=[，．：；][0-9])"]
    if paired:
        conditions.append(f"(?<={char_class(paired)})(?=[ \t\n]*{char_class(seconds)})")
    pattern = char_class([*always, *paired])[:-1] + "0-9\U00010000-\U0010ffff](?:" + "|".join(conditions) + ")"
    return re.compile(pattern), singles | firsts


@cache
def _compiled_prescan(kernels: ModuleType) -> Callable[[str], int]:
    """The compiled prescan, its table (a byte of bits per BMP code point) set from the sets _prescan reads."""
    always, paired, seconds = _prescan_chars()
    singles, firsts, _ = marker_chars()
    bits = bytearray(0x10000)
    for chars, bit in (
        (always, kernels.IN_CLASS),
        (paired, kernels.IN_CLASS | kernels.PAIRED),
        (seconds, kernels.SECOND),
        (FOLD_CHARS, kernels.FOLD),
        (traditional_chars(), kernels.TRADITIONAL),
        (singles | firsts, kernels.MARKER),
        (PUNCTUATION_MARK_SET, kernels.MARK),
    ):
        for char in chars:
            if char < "\U00010000":
                bits[ord(char)] |= bit
    kernels.prescan_table(bytes(bits))
    prescan: Callable[[str], int] = kernels.prescan
    return prescan


_DIGITS = frozenset("0123456789")
_NO_CANTONESE = CantoneseReading(0.0, ())


def _has_traditional(chars: set[str]) -> bool | None:
    """has_traditional of a text holding `chars` (its prescan characters); None when OpenCC must be asked."""
    if not chars.isdisjoint(traditional_chars()):
        return True
    return None if max(chars) >= "\U00010000" else False


def _unmarked_step(text: str, steps: list[StepMap], numbers: bool = True) -> tuple[str, int]:
    """The punctuation step of a text without punctuation marks: full-width marks inside numbers and 。。。."""
    punctuation = unmarked_edits(text, numbers)
    if not punctuation:
        return text, 0
    text, step = apply_edits(text, punctuation)
    if step:
        steps.append(step)
    return text, len(punctuation)


def _canonical(text: str, counts: dict[str, int], steps: list[StepMap]) -> tuple[str, int]:
    """Folds and punctuation (see rules.normalize.canonical); return the text and the marks changed."""
    trigger = CANONICAL_TRIGGER.search(text)  # the first fold or punctuation mark, if any
    if trigger is None:  # no mark to decide: only full-width marks inside numbers and 。。。 can change
        return _unmarked_step(text, steps)
    current, step = fold(text, counts, scan_from=trigger.start())
    if step:
        steps.append(step)
    current, step, punctuation_folds = punctuation_step(current, scan_from=0 if step else trigger.start())
    if step:
        steps.append(step)
    return current, punctuation_folds


def _canonical_prescanned(
    text: str, counts: dict[str, int], steps: list[StepMap]
) -> tuple[str, int, bool | None, bool]:
    """_canonical from one scan collecting the characters that make a step work; also return whether the text has
    a traditional character (None: not known) and whether it can hold a Cantonese marker."""
    kernels = compiled.kernels
    if kernels is not None:
        bits = _compiled_prescan(kernels)(text)
        if bits >= 0:  # -1: a character outside the BMP, which the pattern decides
            return _canonical_compiled(text, counts, steps, bits, kernels)
    prescan, marker_chars = _prescan()
    found = prescan.findall(text)
    if not found:  # plain text, nothing traditional, no Cantonese marker, no full-width mark inside a number
        return (*_unmarked_step(text, steps, numbers=False), False, False)
    chars = set(found)
    marks = chars.intersection(PUNCTUATION_MARK_SET)  # folds make no mark: the text's marks are the same
    return _canonical_found(
        text,
        counts,
        steps,
        folds=not chars.isdisjoint(FOLD_CHARS),
        numbers=not chars.isdisjoint(_DIGITS),
        traditional=_has_traditional(chars),
        markers=not chars.isdisjoint(marker_chars),
        marks=marks,
    )


def _canonical_compiled(
    text: str, counts: dict[str, int], steps: list[StepMap], found: int, kernels: ModuleType
) -> tuple[str, int, bool | None, bool]:
    """_canonical_prescanned from the bits of the compiled prescan (`found`) instead of its set of characters."""
    if not found:
        return (*_unmarked_step(text, steps, numbers=False), False, False)
    return _canonical_found(
        text,
        counts,
        steps,
        folds=bool(found & kernels.FOLD),
        numbers=bool(found & kernels.DIGIT),
        traditional=bool(found & kernels.TRADITIONAL),
        markers=bool(found & kernels.MARKER),
        marks=None if found & kernels.MARK else frozenset(),
    )


def _canonical_found(
    text: str,
    counts: dict[str, int],
    steps: list[StepMap],
    *,
    folds: bool,
    numbers: bool,
    traditional: bool | None,
    markers: bool,
    marks: AbstractSet[str] | None,
) -> tuple[str, int, bool | None, bool]:
    """The folds and punctuation of a prescanned text, from what the prescan found: folds, digits, a traditional
    character (None: not known), a Cantonese marker's characters, and the punctuation marks (None: some, which
    punctuation_step looks up; empty: none)."""
    current = text
    if folds:
        numbers = True  # a fold can make a digit (１，２)
        markers = True  # and an ideograph fold a marker
        current, step = fold(text, counts)
        if step:
            steps.append(step)
        if "ideograph" in counts:  # an ideograph fold can make a traditional character: look again after it
            traditional = None
    if marks is not None and not marks:
        return (*_unmarked_step(current, steps, numbers), traditional, markers)
    current, step, punctuation_folds = punctuation_step(current, marks=marks, numbers=numbers)
    if step:
        steps.append(step)
    return current, punctuation_folds, traditional, markers


def normalize(text: str) -> NormalizedText:
    """Normalize `text` for matching (see rules.normalize); never raises on odd input.

    Each step returns no edits when its trigger characters are absent, and a step whose edits keep every
    length (1:1 folds) adds no map, so a clean document costs a few C-level scans.
    """
    counts: dict[str, int] = {}
    steps: list[StepMap] = []
    if _PRESCAN_FROM <= len(text) <= _PRESCAN_UP_TO:
        current, punctuation_folds, traditional, markers = _canonical_prescanned(text, counts, steps)
    else:
        current, punctuation_folds = _canonical(text, counts, steps)
        traditional, markers = None, True
    edits = whitespace_edits(current, counts)
    if edits:
        current, step = apply_edits(current, edits)
        if step:
            steps.append(step)
    # one detection: its score picks the script config, its regions the rewrite
    reading = read_cantonese(current) if markers else _NO_CANTONESE
    score = reading.score
    cantonese = score >= CANTONESE_THRESHOLD  # is_cantonese, without a call per document
    if traditional is False:  # the prescan found nothing to convert: simplified_step would return at once
        step, config = None, NO_CONVERSION
    else:
        current, step, config = simplified_step(current, cantonese=cantonese, traditional=traditional)
    dialect: list[Edit] = []
    if step:
        steps.append(step)
        if cantonese:  # the script step moved characters: the regions are read again where they now lie
            dialect = dialect_edits(current)
    elif cantonese:  # script folds are 1:1 here and detection reads both scripts alike: the regions still hold
        dialect = region_edits(current, reading.regions, load_lexicon())
    if dialect:
        current, step = apply_edits(current, dialect, group_multichar=True)
        if step:
            steps.append(step)
    facts = (counts, config, score, cantonese, punctuation_folds, len(dialect))
    return NormalizedText.built(current, len(text), tuple(steps), facts)
