"""Character classes shared by the normalizer's steps: the CJK ideograph ranges and compact regex classes."""

from __future__ import annotations

import re
from collections.abc import Iterable

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
CJK_CHAR = re.compile(f"[{CJK}]")


def char_class(chars: Iterable[str]) -> str:
    """A regex character class of `chars` with consecutive code points written as ranges.

    The regex engine tests characters outside the BMP one class item at a time, so 542 listed supplementary
    compatibility ideographs cost 542 comparisons per scanned character; one range costs one.
    """
    codes = sorted(set(map(ord, chars)))
    items: list[str] = []
    start = 0
    while start < len(codes):
        end = start
        while end + 1 < len(codes) and codes[end + 1] == codes[end] + 1:
            end += 1
        first, last = re.escape(chr(codes[start])), re.escape(chr(codes[end]))
        items.append(first if start == end else first + last if end == start + 1 else f"{first}-{last}")
        start = end + 1
    return "[" + "".join(items) + "]"


def is_cjk(char: str) -> bool:
    """True for one character of the CJK class (comparisons: cheaper than a regex call per mark)."""
    return (
        "\u4e00" <= char <= "\u9fff"
        or "\u3400" <= char <= "\u4dbf"
        or "\uf900" <= char <= "\ufaff"
        or "\U00020000" <= char <= "\U0003134f"
    )


def neighbours(text: str, start: int, end: int) -> tuple[str, str]:
    """Characters just before `start` and just after `end`, skipping one space."""
    before = text[start - 1] if start > 0 else ""
    if before == " " and start > 1:
        before = text[start - 2]
    after = text[end] if end < len(text) else ""
    if after == " " and end + 1 < len(text):
        after = text[end + 1]
    return before, after
