"""Rewriting of the Cantonese clauses of a text into Mandarin (detection: rules.normalize.dialect_detect).

In each Cantonese clause every key of the lexicon (rules.normalize.dialect_lexicon) is found in one automaton
pass; the keys rewritten are chosen to cover the most Cantonese characters with the fewest keys.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from rules.normalize import compiled
from rules.normalize.chars import CJK
from rules.normalize.dialect_detect import (
    CANTONESE_THRESHOLD,
    CantoneseReading,
    cantonese_regions,
    cantonese_score,
    is_cantonese,
    read_cantonese,
)
from rules.normalize.dialect_lexicon import Lexicon, LexiconEntry, load_lexicon
from rules.normalize.offsets import Edit

__all__ = ["CANTONESE_THRESHOLD", "cantonese_regions", "cantonese_score", "dialect_edits", "is_cantonese"]
__all__ += ["CantoneseReading", "Lexicon", "LexiconEntry", "load_lexicon", "read_cantonese", "region_edits"]

_LOCATIVE = re.compile("[在喺]")
_LOCATIVE_BREAK = re.compile("[，。！？；：,.!?;:\n]")
# A spoken restart, the words said again after a dash (因为-因为我 = 因为我): written text keeps the second saying.
_RESTART = re.compile(f"([{CJK}]{{1,4}})-(?=\\1)")


def _segment(text: str, keys_at: dict[int, list[tuple[int, int]]], lexicon: Lexicon) -> list[Edit]:
    """The keys to rewrite: the most Cantonese characters covered, then the fewest keys (longest ones).

    A dynamic programme over the key positions, right to left; on a tie the later key wins, which reads 去街市
    as 去 + 街市 (market), not 去街 (go out) + 市. A choice's value is one integer, covered × (len + 1) − keys,
    which orders as (covered, −keys) does since there are never more keys than characters.
    """
    positions = sorted(keys_at)
    unconditional = lexicon.unconditional
    contexts = lexicon.contexts
    scale = len(text) + 1
    best = [0] * (len(positions) + 1)  # value of the best choice from positions[i] on
    choice: list[tuple[int, str, int] | None] = [None] * len(positions)  # (end, mandarin, next index)
    for index in range(len(positions) - 1, -1, -1):
        start = positions[index]
        best_here = best[index + 1]
        for end, number in keys_at[start]:
            mandarin = unconditional[number]  # most keys have no context: no call to make
            if mandarin is None:  # the first entry whose context holds (see dialect_lexicon.context_check)
                check, mandarins = contexts[number]  # type: ignore[misc]
                fitting = check.match(text, start)
                if fitting is None:
                    continue
                mandarin = mandarins[fitting.lastindex - 1]  # type: ignore[operator]
            following = bisect_left(positions, end, index + 1)
            value = best[following] + (end - start) * scale - 1
            if value > best_here:
                best_here = value
                choice[index] = (end, mandarin, following)
        best[index] = best_here
    edits: list[Edit] = []
    index = 0
    while index < len(positions):
        chosen = choice[index]
        if chosen is None:
            index += 1
            continue
        end, mandarin, following = chosen
        edits.append((positions[index], end, mandarin))
        index = following
    return edits


def _passes(regions: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Stretches to scan: regions closer than their own length are scanned together (fewer automaton calls)."""
    stretches: list[tuple[int, int]] = []
    for start, end in regions:
        if stretches and start - stretches[-1][1] <= end - start:
            stretches[-1] = (stretches[-1][0], end)
        else:
            stretches.append((start, end))
    return stretches


def _disjoint_edits(text: str, occurrences: list[tuple[int, int, int]], lexicon: Lexicon) -> list[Edit] | None:
    """_segment's choice when no two keys overlap (half the Cantonese chat lines): every key whose Mandarin
    applies, each adding to what is covered; None when some keys overlap and the choice must be made."""
    previous = 0
    for _, start, end in occurrences:  # in order of their end: disjoint keys are then in order of their start too
        if start < previous:
            return None
        previous = end
    unconditional = lexicon.unconditional
    edits: list[Edit] = []
    for number, start, end in occurrences:
        mandarin = unconditional[number]
        if mandarin is None:
            check, mandarins = lexicon.contexts[number]  # type: ignore[misc]
            fitting = check.match(text, start)
            if fitting is None:
                continue
            mandarin = mandarins[fitting.lastindex - 1]  # type: ignore[operator]
        edits.append((start, end, mandarin))
    return edits


def _keys_at(
    text: str,
    regions: Sequence[tuple[int, int]],
    lexicon: Lexicon,
    occurrences: list[tuple[int, int, int]] | None = None,
) -> dict[int, list[tuple[int, int]]]:
    """The keys lying inside one region, by start: (end, key number) in the automaton's order (`occurrences`:
    the automaton's matches in the whole text, when the caller has them and the region is the whole text)."""
    keys_at: dict[int, list[tuple[int, int]]] = {}
    if len(regions) == 1 and regions[0] == (0, len(text)):  # a Cantonese chat line: every key counts
        if occurrences is None:
            occurrences = lexicon.index.occurrences(text)
        for number, key_start, key_end in occurrences:
            if key_start in keys_at:
                keys_at[key_start].append((key_end, number))
            else:
                keys_at[key_start] = [(key_end, number)]
        return keys_at
    starts = [start for start, _ in regions]
    for first, last in _passes(regions):
        # One automaton pass per stretch of close regions, keeping the keys that lie inside one region.
        for number, key_start, key_end in lexicon.index.occurrences(text[first:last]):
            key_start += first
            key_end += first
            region = bisect_right(starts, key_start) - 1
            if region >= 0 and key_end <= regions[region][1]:
                keys_at.setdefault(key_start, []).append((key_end, number))
    return keys_at


def region_edits(text: str, regions: Sequence[tuple[int, int]], lexicon: Lexicon) -> list[Edit]:
    """Edits for the keys inside the sorted, disjoint regions (see _segment); contexts read from the whole text."""
    if not regions:
        return []
    if len(regions) == 1 and regions[0] == (0, len(text)):
        occurrences = lexicon.index.occurrences(text)
        edits = _disjoint_edits(text, occurrences, lexicon)
        if edits is None:
            kernels = compiled.kernels
            if kernels is not None:  # _keys_at and _segment compiled (a Cantonese chat line's keys overlap)
                edits = kernels.segment(text, occurrences, lexicon.unconditional, lexicon.contexts)
            else:
                edits = _segment(text, _keys_at(text, regions, lexicon, occurrences), lexicon)
    else:
        edits = _segment(text, _keys_at(text, regions, lexicon), lexicon)
    for number, (key_start, key_end, mandarin) in enumerate(edits):
        # 喺广州用紧 already says 在 once: 在广州用, not 在广州在用
        if (
            mandarin.startswith("在")
            and text[key_end - 1] in "緊紧"
            and _LOCATIVE.search(_LOCATIVE_BREAK.split(text[max(0, key_start - 40) : key_start])[-1])
        ):
            edits[number] = (key_start, key_end, mandarin[1:])
    if "-" in text:
        return _without_restarts(text, regions, edits)
    return edits


def _without_restarts(text: str, regions: Sequence[tuple[int, int]], edits: list[Edit]) -> list[Edit]:
    """The edits plus one deleting each spoken restart (see _RESTART) inside a region; keys in a restart go."""
    restarts: list[Edit] = [
        (found.start(), found.end(), "") for start, end in regions for found in _RESTART.finditer(text, start, end)
    ]
    if not restarts:
        return edits
    # The restarts are sorted and disjoint (found left to right in sorted, disjoint regions), so their ends ascend
    # too: the only one an edit can overlap is the first ending after the edit's start (linear in the edits, where
    # testing every restart for every edit was quadratic on a long text).
    restart_ends = [end for _, end, _ in restarts]
    kept = []
    for edit in edits:
        index = bisect_right(restart_ends, edit[0])
        if index == len(restarts) or restarts[index][0] >= edit[1]:
            kept.append(edit)
    return sorted(kept + restarts)


def dialect_edits(text: str) -> list[Edit]:
    """Edits replacing Cantonese wording by Mandarin in the Cantonese clauses of the text only."""
    regions = cantonese_regions(text)
    if not regions:
        return []
    return region_edits(text, regions, load_lexicon())
