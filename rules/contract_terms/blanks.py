"""Blanks of a template, whatever fills them: ＿＿, ____, runs of spaces or 　, ×××, 【】, （ ）, ……, ***."""

from __future__ import annotations

import re

# A run of fill characters long enough that it is a slot, not a typo; empty brackets are slots however short.
BLANK_PATTERN = (
    r"(?:[＿_]{2,}|[＿_]|[ \t　]{2,}|[×xX＊*]{2,}|…{2,}|\.{4,}|[-—]{3,}|"
    r"【[ \t　＿_]*】|[（(][ \t　＿_]*[）)]|[〔\[][ \t　＿_]*[〕\]])"
)
_BLANK_RE = re.compile(BLANK_PATTERN)
# A unit directly after a blank says which kind of value is missing (　　元, ＿天, ＿%).
_UNIT_AFTER = r"(?:元|万元|美元|%|％|天|日|个?工作日|个?月|年|周|小时|倍)"
# Normalised text keeps one space of a run of spaces or 　: a space between a word and a unit (月租金为 元) is a slot.
_BLANK_VALUE_RE = re.compile(
    rf"(?:百分之|千分之|万分之)?(?:{BLANK_PATTERN}|(?<=[\u4e00-\u9fff：:])[ \t　]+)\s*{_UNIT_AFTER}"
)


def find_blanks(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the spans of blanks in text[start:end]."""
    return [m.span() for m in _BLANK_RE.finditer(text, start, len(text) if end is None else end)]


def is_blank(value: str) -> bool:
    """Whether a value slot holds nothing but a blank (or nothing at all)."""
    stripped = value.strip(" \t　")
    return not stripped or _BLANK_RE.fullmatch(stripped) is not None or not value.strip()


def blank_values(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Return the spans of blank values with their unit (月租金为　　元 → '　　元', 前＿天 → '＿天')."""
    return [m.span() for m in _BLANK_VALUE_RE.finditer(text, start, len(text) if end is None else end)]
