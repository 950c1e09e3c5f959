"""Grounding: find an LLM's evidence quote in the text it was given, or reject it."""

from __future__ import annotations

MIN_QUOTE_CHARS = 2


def _without_whitespace(text: str) -> tuple[str, list[int]]:
    """The text with all whitespace removed, and for each kept character its index in the original."""
    kept: list[str] = []
    positions: list[int] = []
    for index, char in enumerate(text):
        if not char.isspace():
            kept.append(char)
            positions.append(index)
    return "".join(kept), positions


def ground(quote: str, text: str) -> tuple[int, int] | None:
    """Return the (start, end) of `quote` in `text`, or None when it is not there or too short to mean anything.

    Exact match first; otherwise whitespace is ignored on both sides (models re-flow line breaks and spaces)
    and the match is mapped back to positions in `text`.
    """
    stripped = quote.strip()
    if len(stripped) < MIN_QUOTE_CHARS:
        return None
    start = text.find(stripped)
    if start >= 0:
        return start, start + len(stripped)
    compact_quote, _ = _without_whitespace(stripped)
    compact_text, positions = _without_whitespace(text)
    if len(compact_quote) < MIN_QUOTE_CHARS:
        return None
    found = compact_text.find(compact_quote)
    if found < 0:
        return None
    return positions[found], positions[found + len(compact_quote) - 1] + 1
