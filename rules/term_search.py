"""Literal term search for every rule pack: one Aho-Corasick pass finds each occurrence of each term.

The automaton is compiled to a DFA once per pack (ahocorasick-rs), so a scan costs one table step per
character whatever the number of terms; every occurrence is reported, overlapping and nested ones included,
with character offsets into the text searched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Generic, TypeVar

from ahocorasick_rs import AhoCorasick, Implementation

V = TypeVar("V")

Occurrence = tuple[int, int, int]  # (term number, start, end)


class TermIndex(Generic[V]):
    """A fixed set of distinct literal terms, each carrying a value, searched in one pass."""

    __slots__ = ("_automaton", "terms", "values")

    def __init__(self, entries: Iterable[tuple[str, V]], implementation: Implementation = Implementation.DFA) -> None:
        terms: list[str] = []
        values: list[V] = []
        seen: set[str] = set()
        for term, value in entries:
            if not term:
                raise ValueError("a search term cannot be empty")
            if term in seen:
                raise ValueError(f"search term {term!r} is listed twice")
            seen.add(term)
            terms.append(term)
            values.append(value)
        self.terms: tuple[str, ...] = tuple(terms)
        self.values: tuple[V, ...] = tuple(values)
        # DFA: fastest over long texts; a contiguous NFA starts faster on many short ones (clauses).
        self._automaton = AhoCorasick(terms, implementation=implementation) if terms else None

    def __len__(self) -> int:
        return len(self.terms)

    def __contains__(self, term: object) -> bool:
        return term in self.terms

    def items(self) -> Iterator[tuple[str, V]]:
        """Every (term, value) pair, in the order they were given."""
        return zip(self.terms, self.values, strict=True)

    def occurrences(self, text: str) -> list[Occurrence]:
        """Every (term number, start, end) in text, overlaps included, in order of their end offset."""
        if self._automaton is None:
            return []
        try:
            return self._automaton.find_matches_as_indexes(text, overlapping=True)
        except UnicodeEncodeError:
            # A lone surrogate cannot be searched as UTF-8; U+FFFD stands in one-for-one, offsets unchanged.
            return self._automaton.find_matches_as_indexes(_replace_surrogates(text), overlapping=True)

    def find(self, text: str) -> list[tuple[V, int, int]]:
        """Every (value, start, end) in text, overlaps included, in order of their end offset."""
        values = self.values
        return [(values[number], start, end) for number, start, end in self.occurrences(text)]


def _replace_surrogates(text: str) -> str:
    """Return text with each unpaired surrogate code point replaced by U+FFFD."""
    return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in text)
