"""A PDF page's text in visual reading order, rebuilt from its characters' boxes (no PDF library needed here).

A text layer lists characters in the order the page's content stream draws them, which need not be the order a
reader sees: an editor that appends a revised article at the end of the stream, or a two-column page, reads
out of order. The characters are first cut into *runs* (what the stream drew left to right on one baseline);
runs are never split, so a line drawn in order comes back exactly as drawn. The runs are then ordered by a
recursive XY cut: a region is cut at its widest empty band, horizontal (between lines or blocks, read top to
bottom) or vertical (a column gutter, read left to right), until each region is one run. Choosing the widest
band first is what keeps a title above two columns from interleaving them: the gap under the title is wider than
the line spacing, and the gutter is wider than the gaps between lines in a column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple


class Glyph(NamedTuple):
    """One character of the text layer with its box in PDF units (y grows upwards); "\n" marks a line break."""

    text: str
    left: float
    bottom: float
    right: float
    top: float


# A band at least this share of the widest one is cut in the same pass (evenly spaced lines come apart at once).
_SAME_CUT = 0.8
# Two boxes share a line when they overlap vertically by at least this share of the lower one's height.
_SAME_LINE = 0.5
# A run breaks when the next glyph jumps back, or forward by more than this many line heights.
_RUN_JUMP = 3.0
# A gap between two runs of one line wider than this share of the line height reads as a space.
_WORD_GAP = 0.3
# Real layouts nest a few levels deep; a page built so that each cut peels off one line would otherwise recurse
# once per line, so past this depth a region is simply read line by line.
_MAX_DEPTH = 40
# A column is at least this many line heights wide (list numbers drawn apart from their text are narrower).
_COLUMN_WIDTH = 6.0
# A vertical cut needs a gutter at least this share of the median line height (a space is not a column).
_GUTTER = 1.0


@dataclass
class Run:
    """Glyphs the stream drew one after another on one line, left to right, with their bounding box."""

    text: list[str] = field(default_factory=list)
    left: float = float("inf")
    bottom: float = float("inf")
    right: float = float("-inf")
    top: float = float("-inf")

    @property
    def height(self) -> float:
        return max(self.top - self.bottom, 0.0)


def _same_line(bottom: float, top: float, other_bottom: float, other_top: float) -> bool:
    overlap = min(top, other_top) - max(bottom, other_bottom)
    return overlap >= _SAME_LINE * max(min(top - bottom, other_top - other_bottom), 1e-6)


def runs_of(glyphs: Iterable[Glyph]) -> list[Run]:
    """Cut the stream's glyphs into runs: a run ends at a line break, a new baseline, or a jump back or far ahead.

    The hot loop of PDF extraction (once per character), so the open run's box is kept in local variables."""
    runs: list[Run] = []
    texts: list[str] = []
    run_left = run_bottom = run_right = run_top = 0.0
    for text, left, bottom, right, top in glyphs:
        if text == "\n" or text == "\r":
            if texts:
                runs.append(Run(texts, run_left, run_bottom, run_right, run_top))
                texts = []
            continue
        if texts:
            if bottom == run_bottom and top == run_top:  # one font on one baseline: the usual case
                height = top - bottom
                if run_right - _SAME_LINE * height <= left <= run_right + _RUN_JUMP * height:
                    texts.append(text)
                    if right > run_right:
                        run_right = right
                    continue
            elif _same_line(run_bottom, run_top, bottom, top):
                height = max(run_top - run_bottom, top - bottom)
                if run_right - _SAME_LINE * height <= left <= run_right + _RUN_JUMP * height:
                    texts.append(text)
                    run_right, run_bottom, run_top = max(run_right, right), min(run_bottom, bottom), max(run_top, top)
                    continue
            runs.append(Run(texts, run_left, run_bottom, run_right, run_top))
            texts = []
        if not text.isspace():  # a space opening a run carries no position worth keeping
            texts = [text]
            run_left, run_bottom, run_right, run_top = left, bottom, right, top
    if texts:
        runs.append(Run(texts, run_left, run_bottom, run_right, run_top))
    return runs


def _gaps(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The empty bands (low, high) between the union of intervals, from low to high."""
    gaps = []
    ordered = sorted(intervals)
    reach = ordered[0][1]
    for low, high in ordered[1:]:
        if low > reach:
            gaps.append((reach, low))
        reach = max(reach, high)
    return gaps


def _by_lines(runs: list[Run]) -> list[Run]:
    """Runs no empty band parts (one line's pieces, overlapping lines): line by line from the top, each left to
    right; a run joins the line of the highest run it shares a line with."""
    lines: list[list[Run]] = []
    for run in sorted(runs, key=lambda run: -run.top):
        if lines and _same_line(lines[-1][0].bottom, lines[-1][0].top, run.bottom, run.top):
            lines[-1].append(run)
        else:
            lines.append([run])
    return [run for line in lines for run in sorted(line, key=lambda run: run.left)]


def _columns(runs: list[Run], gutters: list[tuple[float, float]], line: float) -> bool:
    """True when the gutters part runs into at least two columns, each of two lines or more and COLUMN_WIDTH
    lines wide: a title in the gutter, a form line with a wide gap, or list numbers drawn apart from their
    items ("第一条" and its text, tab-aligned) are not a column layout."""
    pieces: list[list[Run]] = [[] for _ in range(len(gutters) + 1)]
    for run in runs:
        pieces[sum(run.left >= high for _, high in gutters)].append(run)
    columns = 0
    for piece in pieces:
        if len(piece) < 2 or not _gaps([(run.bottom, run.top) for run in piece]):
            continue
        columns += max(run.right for run in piece) - min(run.left for run in piece) >= _COLUMN_WIDTH * line
    return columns >= 2


def _xy_order(runs: list[Run], gutter: float, depth: int = 0) -> list[Run]:
    """Order runs by recursive XY cuts at the widest empty band (see the module docstring)."""
    if len(runs) <= 1:
        return runs
    if depth >= _MAX_DEPTH:
        return _by_lines(runs)
    across = _gaps([(run.bottom, run.top) for run in runs])
    down = [gap for gap in _gaps([(run.left, run.right) for run in runs]) if gap[1] - gap[0] >= gutter]
    if down and not _columns(runs, down, gutter / _GUTTER):
        down = []
    widest_across = max((high - low for low, high in across), default=0.0)
    widest_down = max((high - low for low, high in down), default=0.0)
    if widest_across == widest_down == 0.0:
        return _by_lines(runs)
    vertical = widest_down > widest_across
    widest = widest_down if vertical else widest_across
    cuts = [(low + high) / 2 for low, high in (down if vertical else across) if high - low >= _SAME_CUT * widest]
    regions: list[list[Run]] = [[] for _ in range(len(cuts) + 1)]
    for run in runs:
        centre = (run.left + run.right) / 2 if vertical else (run.bottom + run.top) / 2
        regions[sum(centre > cut for cut in cuts)].append(run)
    if not vertical:
        regions.reverse()  # PDF y grows upwards: the highest band is read first
    return [run for region in regions for run in _xy_order(region, gutter, depth + 1)]


def _joined(ordered: Sequence[Run]) -> str:
    """Runs in reading order as text: runs of one line joined (with a space across a wide gap), lines by \n."""
    parts: list[str] = []
    previous: Run | None = None
    for run in ordered:
        text = "".join(run.text).rstrip()
        if previous is not None:
            if _same_line(previous.bottom, previous.top, run.bottom, run.top) and run.left >= previous.right - 1e-3:
                gap = run.left - previous.right
                parts.append(" " if gap > _WORD_GAP * max(run.height, previous.height) else "")
            else:
                parts.append("\n")
        parts.append(text)
        previous = run
    return "".join(parts)


def reading_order_text(glyphs: Iterable[Glyph]) -> str:
    """A page's text in visual reading order, from its glyphs in stream order (lines end in \n, none last)."""
    runs = runs_of(glyphs)
    if not runs:
        return ""
    heights = sorted(run.height for run in runs)
    return _joined(_xy_order(runs, _GUTTER * heights[len(heights) // 2]))
