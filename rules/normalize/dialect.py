"""Cantonese detection (a weighted marker density) and rewriting of Cantonese wording into Mandarin."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rules.normalize.canonical import CJK
from rules.normalize.offsets import Edit
from rules.normalize.script import converter

DATA = Path(__file__).resolve().parent / "data"
LEXICON_FILE = DATA / "cantonese_mandarin.tsv"
MARKERS_FILE = DATA / "cantonese_markers.tsv"
# Weighted markers per character, with short texts counted as at least this long so one word does not decide.
CANTONESE_THRESHOLD = 0.03
_MIN_LENGTH = 10
_CLAUSE_BREAK = re.compile("[，。！？；：,.!?;:\n]")
_LOCATIVE = re.compile("[在喺]")


@dataclass(frozen=True)
class LexiconEntry:
    """One rewrite: Cantonese key → Mandarin, with optional constraints on the neighbouring characters."""

    cantonese: str
    mandarin: str
    before: str
    after: str


@dataclass(frozen=True)
class Lexicon:
    """A loaded rewrite lexicon: its id, version, entries and the compiled longest-match pattern."""

    lexicon_id: str
    version: str
    entries: tuple[LexiconEntry, ...]
    first_chars: re.Pattern[str]
    # first character of a key → (pattern of the keys starting with it, longest first; their entries)
    by_first_char: dict[str, tuple[re.Pattern[str], tuple[LexiconEntry, ...]]]


def _header(lines: list[str], key: str) -> str:
    for line in lines:
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise ValueError(f"lexicon header lacks '{key}'")


def _rows(path: Path) -> tuple[list[str], list[list[str]]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
    return lines, rows


def _script_forms(text: str) -> list[str]:
    """The text as written plus its hk2s form: the rewrite sees simplified text, users may type either."""
    simplified = converter("hk2s").convert(text)
    return [text] if simplified == text else [text, simplified]


def _context(constraint: str, *, before: bool) -> str:
    """Regex lookaround for a before/after constraint column."""
    if not constraint:
        return ""
    if constraint in ("^", "$"):
        return f"(?<![{CJK}])" if before else f"(?![{CJK}])"
    negative = constraint.startswith("!")
    body = constraint[1:] if negative else constraint
    inner = body[1:-1]
    chars = inner if "\\" in inner else "".join(dict.fromkeys("".join(_script_forms(inner))))
    if before:
        return f"(?<![{chars}])" if negative else f"(?<=[{chars}])"
    return f"(?![{chars}])" if negative else f"(?=[{chars}])"


@cache
def load_lexicon(path: Path = LEXICON_FILE) -> Lexicon:
    """Read the rewrite lexicon and compile one pattern whose groups are tried longest key first."""
    lines, rows = _rows(path)
    entries: list[LexiconEntry] = []
    for row in rows:
        cells = [*row, "", "", ""][:4]
        for key in _script_forms(cells[0]):
            entries.append(LexiconEntry(key, cells[1], cells[2], cells[3]))
    # Stable sort: among equal lengths the file order decides, so a constrained line can precede the default.
    entries.sort(key=lambda entry: -len(entry.cantonese))
    grouped: dict[str, list[LexiconEntry]] = {}
    for entry in entries:
        grouped.setdefault(entry.cantonese[0], []).append(entry)
    by_first_char = {
        char: (re.compile("|".join(map(_alternative, group))), tuple(group)) for char, group in grouped.items()
    }
    first_chars = re.compile("[" + "".join(map(re.escape, grouped)) + "]")
    return Lexicon(_header(lines, "id"), _header(lines, "version"), tuple(entries), first_chars, by_first_char)


def _alternative(entry: LexiconEntry) -> str:
    before = _context(entry.before, before=True)
    return f"({before}{re.escape(entry.cantonese)}{_context(entry.after, before=False)})"


@cache
def _markers() -> tuple[re.Pattern[str], dict[str, float], re.Pattern[str]]:
    """The marker pattern (longest first), the weight of each form, and a class of their first characters."""
    _, rows = _rows(MARKERS_FILE)
    weights: dict[str, float] = {}
    for marker, weight in rows:
        for form in _script_forms(marker):
            weights.setdefault(form, float(weight))
    ordered = sorted(weights, key=len, reverse=True)
    first_chars = re.compile("[" + "".join(map(re.escape, dict.fromkeys(form[0] for form in ordered))) + "]")
    return re.compile("|".join(map(re.escape, ordered))), weights, first_chars


def cantonese_score(text: str) -> float:
    """Weighted Cantonese markers per character (texts under 10 characters count as 10); 0.0 for Mandarin."""
    pattern, weights, first_chars = _markers()
    first = first_chars.search(text)  # a one-class scan: most texts hold no marker at all
    if first is None:
        return 0.0
    total = sum(weights[marker] for marker in pattern.findall(text, first.start()))
    return total / max(len(text), _MIN_LENGTH)


def is_cantonese(score: float) -> bool:
    """True when a cantonese_score is high enough for the dialect rewrite to run."""
    return score >= CANTONESE_THRESHOLD


def dialect_edits(text: str) -> list[Edit]:
    """Edits replacing Cantonese wording by Mandarin, longest match first, honouring each entry's context."""
    lexicon = load_lexicon()
    edits: list[Edit] = []
    resume = 0
    for candidate in lexicon.first_chars.finditer(text):
        position = candidate.start()
        if position < resume:
            continue
        pattern, group = lexicon.by_first_char[candidate.group()]
        match = pattern.match(text, position)  # lookbehinds still see the text before `position`
        if match is None:
            continue
        resume = match.end()
        entry = group[(match.lastindex or 1) - 1]
        mandarin = entry.mandarin
        # 喺广州用紧 already says 在 once: 在广州用, not 在广州在用
        if (
            mandarin.startswith("在")
            and entry.cantonese.endswith(("緊", "紧"))
            and _LOCATIVE.search(_CLAUSE_BREAK.split(text[max(0, match.start() - 40) : match.start()])[-1])
        ):
            mandarin = mandarin[1:]
        edits.append((match.start(), match.end(), mandarin))
    return edits
