"""Drafting guidance in contract templates: long bracketed notes, 说明 sections and 注: lines, as offsets."""

from __future__ import annotations

import bisect
import re

_GUIDANCE_OPENERS = ("如:", "如,", "例如", "注", "说明", "填写", "含", "包括", "当事人", "此", "可", "应", "按")
_GUIDANCE_SECTION = re.compile(r"^(?:填写说明|使用说明|[^\s]{0,12}使用说明|说明|编写说明)\s*:?$")
_NOTE_LINE = re.compile(r"^\s*注\s*:")
# A paragraph can open a 说明 section or be a 注: line only when it holds one of these words.
_GUIDANCE_WORD = re.compile(r"注|说\s*明")
# A short line naming the document ("北京市机动车驾驶培训服务合同") ends a guidance preface.
_DOCUMENT_TITLE = re.compile(r"^[^,;。:]{2,30}(?:合同|协议|协议书|合同书)(?:\(.{0,12}\))*$")
_SLOT_BEFORE = re.compile(r"(?:_|:|。|^)\s*$")
_BRACKET = re.compile(r"[()]")
_SPACE = re.compile(r"\s")
_MIN_NOTE = 12  # shorter bracketed passages are ordinary parentheses


def bracket_guidance(text: str) -> list[tuple[int, int]]:
    """Return long bracketed notes that follow a slot or open a line, or that read as instructions."""
    spans: list[tuple[int, int]] = []
    depth = 0
    opened = 0  # where the outermost open bracket sits; nested brackets belong to its note
    for bracket in _BRACKET.finditer(text):
        offset = bracket.start()
        if text[offset] == "(":
            if depth == 0:
                opened = offset
            depth += 1
            continue
        if depth == 0:
            continue
        depth -= 1
        if depth or offset - opened - 1 < _MIN_NOTE:
            continue
        inner = text[opened + 1 : offset].strip()
        if len(inner) < _MIN_NOTE:
            continue
        line_start = text.rfind("\n", 0, opened) + 1
        if inner.startswith(_GUIDANCE_OPENERS) or _SLOT_BEFORE.search(text[max(line_start, opened - 4) : opened]):
            spans.append((opened, offset + 1))
    return spans


def section_guidance(text: str, starts: list[int], ends: list[int], levels: list[int | None]) -> list[tuple[int, int]]:
    """Return 说明 sections (to the document title after a preface, else to the end) and 注: lines."""
    spans: list[tuple[int, int]] = []
    candidates = sorted({bisect.bisect_right(starts, m.start()) - 1 for m in _GUIDANCE_WORD.finditer(text)})
    for position in candidates:
        if position < 0:
            continue
        line = _SPACE.sub("", text[starts[position] : ends[position]])
        if _NOTE_LINE.match(line):
            spans.append((starts[position], ends[position]))
        if not _GUIDANCE_SECTION.match(line):
            continue
        end = len(text)
        for following in range(position + 1, len(starts)):
            title = _SPACE.sub("", text[starts[following] : ends[following]])
            if levels[following] == 1 or _DOCUMENT_TITLE.match(title):
                end = starts[following]
                break
        spans.append((starts[position], end))
    return spans


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return sorted, non-overlapping spans covering the same offsets."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
