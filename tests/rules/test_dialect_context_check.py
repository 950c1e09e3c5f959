"""The rewrite's compiled context check (one pattern per key) picks what reading the entries one by one picks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.normalize.dialect_lexicon import LexiconEntry, context_check, load_lexicon

LEXICON = load_lexicon()
CONTEXT_KEYS = [number for number, check in enumerate(LEXICON.contexts) if check is not None]
# Neighbours: characters the grammar's contexts name (both scripts), other Chinese characters, marks, Latin, digits.
NEIGHBOURS = [*"我你佢他她們哋就又都係關統列好多快試等睇聽見搵啲的了呢在喺緊張要一二三4", *"，。！？ a1\n"]


def first_fitting(text: str, start: int, end: int, entries: tuple[LexiconEntry, ...]) -> str | None:
    """The Mandarin of the first entry whose context holds, reading each entry's fits (the reference)."""
    for entry in entries:
        if (entry.before is None and entry.after is None) or entry.fits(text, start, end):
            return entry.mandarin
    return None


def test_the_grammar_has_keys_with_contexts() -> None:
    assert len(CONTEXT_KEYS) > 40
    assert all(LEXICON.unconditional[number] is None for number in CONTEXT_KEYS)


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(CONTEXT_KEYS),
    st.text(st.sampled_from(NEIGHBOURS), max_size=2),
    st.text(st.sampled_from(NEIGHBOURS), max_size=2),
)
def test_compiled_check_matches_entry_by_entry(number: int, before: str, after: str) -> None:
    key = LEXICON.index.terms[number]
    entries = LEXICON.index.values[number]
    text = before + key + after
    start, end = len(before), len(before) + len(key)
    pattern, mandarins = context_check(entries)
    found = pattern.match(text, start)
    compiled = None if found is None or found.lastindex is None else mandarins[found.lastindex - 1]
    assert compiled == first_fitting(text, start, end, entries)
