"""Offset maps: where each character of a rewritten text came from in the text before the rewrite."""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from rules.normalize import compiled

# (old_start, old_end, replacement) on the text before a step; sorted and non-overlapping.
Edit = tuple[int, int, str]


@dataclass(frozen=True)
class StepMap:
    """One rewrite step: edits that change length (or regroup characters); the rest is copied 1:1."""

    new_starts: array[int]
    new_ends: array[int]
    old_starts: array[int]
    old_ends: array[int]
    old_length: int
    new_length: int

    @classmethod
    def built(
        cls,
        new_starts: array[int],
        new_ends: array[int],
        old_starts: array[int],
        old_ends: array[int],
        old_length: int,
        new_length: int,
    ) -> StepMap:
        """The same object as the constructor makes, without a frozen dataclass's object.__setattr__ per field
        (six of them cost more than applying a few edits)."""
        step = object.__new__(cls)
        step.__dict__.update(
            new_starts=new_starts,
            new_ends=new_ends,
            old_starts=old_starts,
            old_ends=old_ends,
            old_length=old_length,
            new_length=new_length,
        )
        return step

    def char_range(self, position: int) -> tuple[int, int]:
        """Return the non-empty old range [start, end) that new character `position` came from."""
        index = bisect_right(self.new_starts, position) - 1
        if index < 0:
            return position, position + 1
        if position < self.new_ends[index]:
            return self.old_starts[index], self.old_ends[index]
        old = position - self.new_ends[index] + self.old_ends[index]
        return old, old + 1

    def boundary(self, position: int) -> int:
        """Return the old position of the gap before new character `position` (end maps to end)."""
        if position >= self.new_length:
            return self.old_length
        return self.char_range(position)[0]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Return the smallest old span covering new span [start, end); an empty span stays empty."""
        if start >= end:
            gap = self.boundary(start)
            return gap, gap
        return self.char_range(start)[0], self.char_range(end - 1)[1]


def apply_edits(text: str, edits: Sequence[Edit], *, group_multichar: bool = False) -> tuple[str, StepMap | None]:
    """Apply sorted edits to `text`; return the new text and its map (None when nothing moved).

    Equal-length edits map character by character and need no entry; with `group_multichar` a multi-character
    replacement maps as one block (a reordering rewrite such as 用紧→在用 is not a letter-for-letter match).
    The compiled kernel when built (edits it does not take, such as overlapping ones, go to the Python code).
    """
    if not edits:
        return text, None
    kernels = compiled.kernels
    if kernels is not None:
        try:
            new_text, columns = kernels.apply_edits(text, edits, group_multichar)
        except (TypeError, ValueError):
            return apply_edits_python(text, edits, group_multichar=group_multichar)
        return new_text, compiled_step(columns, len(text), len(new_text))
    return apply_edits_python(text, edits, group_multichar=group_multichar)


Columns = tuple["array[int]", "array[int]", "array[int]", "array[int]"]


def compiled_step(columns: Columns | None, old_length: int, new_length: int) -> StepMap | None:
    """The StepMap of a compiled kernel's (new_starts, new_ends, old_starts, old_ends), None when nothing moved."""
    if columns is None:
        return None
    new_starts, new_ends, old_starts, old_ends = columns
    return StepMap.built(new_starts, new_ends, old_starts, old_ends, old_length, new_length)


def apply_edits_python(
    text: str, edits: Sequence[Edit], *, group_multichar: bool = False
) -> tuple[str, StepMap | None]:
    """apply_edits in Python (the reference of the compiled kernel)."""
    if not edits:
        return text, None
    pieces: list[str] = []
    # arrays from the start: no list to convert, 8 bytes per entry
    new_starts, new_ends, old_starts, old_ends = array("q"), array("q"), array("q"), array("q")
    # bound once: four attribute look-ups per edit otherwise
    add_piece, add_new_start, add_new_end = pieces.append, new_starts.append, new_ends.append
    add_old_start, add_old_end = old_starts.append, old_ends.append
    previous = 0
    new_position = 0
    for old_start, old_end, replacement in edits:
        if old_start > previous:
            add_piece(text[previous:old_start])
            new_position += old_start - previous
        add_piece(replacement)
        width = len(replacement)
        if width != old_end - old_start or (group_multichar and width > 1):
            add_new_start(new_position)
            add_new_end(new_position + width)
            add_old_start(old_start)
            add_old_end(old_end)
        new_position += width
        previous = old_end
    pieces.append(text[previous:])
    new_text = "".join(pieces)
    if not new_starts:
        return new_text, None
    return new_text, StepMap.built(new_starts, new_ends, old_starts, old_ends, len(text), len(new_text))


def compose_span(steps: Sequence[StepMap], start: int, end: int, length: int) -> tuple[int, int]:
    """Map span [start, end) of the final text back through `steps` (first to last) to the original."""
    start = min(max(start, 0), length)
    end = min(max(end, start), length)
    for step in reversed(steps):
        start, end = step.span(start, end)
    return start, end
