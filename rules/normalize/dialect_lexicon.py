"""The Cantonese → Mandarin rewrite lexicon: hand-written grammar rules with contexts, then the mined word table.

Both files are read into one Aho-Corasick automaton (every key in its written and hk2s form), so finding every
key in a clause costs one pass whatever the number of keys. At each position the longest key whose context holds
wins; among keys of one length the grammar rules come first, in file order, then the mined table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ahocorasick_rs import Implementation

from rules.normalize.canonical import CJK
from rules.normalize.script import converter
from rules.term_search import TermIndex

DATA = Path(__file__).resolve().parent / "data"
GRAMMAR_FILE = DATA / "cantonese_mandarin.tsv"
MINED_FILE = DATA / "cantonese_lexicon.tsv"
_CJK_CLASS = re.compile(f"[{CJK}]")


@dataclass(frozen=True)
class Context:
    """A constraint on one neighbouring character: it must (or must not) be in a class; absent counts as outside."""

    chars: re.Pattern[str]
    negative: bool

    def holds(self, char: str) -> bool:
        """True when `char` ("" at the text's edge) satisfies the constraint."""
        inside = bool(char) and self.chars.match(char) is not None
        return inside != self.negative


@dataclass(frozen=True)
class LexiconEntry:
    """One rewrite: Cantonese key → Mandarin, with optional constraints on the neighbouring characters."""

    cantonese: str
    mandarin: str
    before: Context | None
    after: Context | None

    def fits(self, text: str, start: int, end: int) -> bool:
        """True when the characters around text[start:end] satisfy this entry's contexts."""
        if self.before is not None and not self.before.holds(text[start - 1] if start else ""):
            return False
        return self.after is None or self.after.holds(text[end] if end < len(text) else "")


@dataclass(frozen=True)
class Lexicon:
    """The loaded lexicon: id and version (grammar file + mined table) and the automaton over every key form."""

    lexicon_id: str
    version: str
    index: TermIndex[tuple[LexiconEntry, ...]]
    # By key number: the Mandarin of a key whose first entry has no context (it always fits), else None.
    unconditional: tuple[str | None, ...]
    # By key number, for the others: their entries as one pattern matched at the key's start, and the Mandarin of
    # each alternative (see context_check).
    contexts: tuple[tuple[re.Pattern[str], tuple[str, ...]] | None, ...]

    def __len__(self) -> int:
        return len(self.index)


def _header(lines: list[str], key: str) -> str:
    for line in lines:
        if line.startswith(f"# {key}:"):
            return line.split(":", 1)[1].strip()
    raise ValueError(f"lexicon header lacks '{key}'")


def read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """The header lines and the tab-separated rows of a lexicon or marker file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]
    return lines, rows


def script_forms(text: str) -> list[str]:
    """The text as written plus its hk2s form: the rewrite sees simplified text, users may type either."""
    simplified = converter("hk2s").convert(text)
    return [text] if simplified == text else [text, simplified]


def _context(constraint: str) -> Context | None:
    """Parse a before/after column: [..] one of, ![..] none of, ^ / $ not a Chinese character."""
    if not constraint:
        return None
    if constraint in ("^", "$"):
        return Context(_CJK_CLASS, negative=True)
    negative = constraint.startswith("!")
    inner = (constraint[1:] if negative else constraint)[1:-1]
    # A class written with escapes (\u4e00-\u9fff) is a range; a plain list gets its hk2s forms too.
    chars = inner if "\\" in inner else re.escape("".join(dict.fromkeys("".join(script_forms(inner)))))
    return Context(re.compile(f"[{chars}]"), negative)


def _lookaround(context: Context | None, behind: bool) -> str:
    """The constraint as a lookbehind or lookahead: a missing character (text edge) fails a positive one and
    satisfies a negative one, as Context.holds has it."""
    if context is None:
        return ""
    return f"(?{'<' if behind else ''}{'!' if context.negative else '='}{context.chars.pattern})"


def context_check(entries: tuple[LexiconEntry, ...]) -> tuple[re.Pattern[str], tuple[str, ...]]:
    """A key's entries as one pattern of alternatives in entry order, each its own group, matched where the key
    starts: the first alternative that matches is the first entry whose context holds, and its group number picks
    its Mandarin (one C call instead of a method call per entry and side)."""
    alternatives: list[str] = []
    for entry in entries:
        before, after = _lookaround(entry.before, behind=True), _lookaround(entry.after, behind=False)
        alternatives.append(f"({before}{re.escape(entry.cantonese)}{after})")
        if not (before or after):  # it always fits: the entries after it are never read
            break
    return re.compile("|".join(alternatives)), tuple(entry.mandarin for entry in entries[: len(alternatives)])


@cache
def load_lexicon(grammar: Path = GRAMMAR_FILE, mined: Path | None = MINED_FILE) -> Lexicon:
    """Read the grammar rules and the mined table (None: the rules alone) into one automaton, once per process."""
    grammar_lines, grammar_rows = read_table(grammar)
    mined_lines, mined_rows = read_table(mined) if mined else (["# id: none", "# version: none"], [])
    by_key: dict[str, list[LexiconEntry]] = {}
    for row in grammar_rows:
        key, mandarin, before, after = [*row, "", "", ""][:4]
        for form in script_forms(key):
            by_key.setdefault(form, []).append(LexiconEntry(form, mandarin, _context(before), _context(after)))
    grammar_keys = set(by_key)
    for key, mandarin, *_ in mined_rows:
        for form in script_forms(key):
            # A grammar rule for the same key wins; two mined keys folding to one form: the first in sort order.
            if form not in grammar_keys and form not in by_key:
                by_key[form] = [LexiconEntry(form, mandarin, None, None)]
    version = f"{_header(grammar_lines, 'version')}+{_header(mined_lines, 'id')}@{_header(mined_lines, 'version')}"
    index = TermIndex(((key, tuple(entries)) for key, entries in by_key.items()), Implementation.ContiguousNFA)
    unconditional = tuple(
        entries[0].mandarin if entries[0].before is None and entries[0].after is None else None
        for entries in index.values
    )
    contexts = tuple(
        None if mandarin is not None else context_check(entries)
        for mandarin, entries in zip(unconditional, index.values, strict=True)
    )
    return Lexicon(_header(grammar_lines, "id"), version, index, unconditional, contexts)
