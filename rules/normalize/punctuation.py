"""Punctuation: one form per family, so a matcher needs one pattern (convention in rules.normalize.canonical).

`punctuation_edits` decides every mark in turn and is the reference; `punctuation_step` gives the same text with
the marks that only look at their neighbours (, ; : ? ! and a lone .) rewritten by C-level regex substitutions.
"""

from __future__ import annotations

import re

from rules.normalize.chars import CJK_CHAR, char_class, is_cjk, neighbours
from rules.normalize.offsets import Edit

_TO_CHINESE = {",": "，", ";": "；", ":": "：", "?": "？", "!": "！", "(": "（", ")": "）", ".": "。"}
_TO_ASCII = {"，": ",", "．": ".", "：": ":", "；": ";"}
_VARIANTS = {
    "﹐": "，",
    "︐": "，",
    "﹑": "、",
    "､": "、",
    "︑": "、",
    "﹔": "；",
    "︔": "；",
    "﹕": "：",
    "︓": "：",
    "﹖": "？",
    "︖": "？",
    "﹗": "！",
    "︕": "！",
    "﹙": "（",
    "﹚": "）",
    "｡": "。",
    "︒": "。",
    "﹒": "。",
    "「": "“",
    "」": "”",
    "﹁": "“",
    "﹂": "”",
    "〝": "“",
    "〞": "”",
    "〟": "”",
    "„": "“",
    "‟": "“",
    "『": "‘",
    "』": "’",
    "﹃": "‘",
    "﹄": "’",
    "＇": "'",
}
PUNCTUATION_MARKS = ',;:?!.()"＂…⋯' + "".join(_VARIANTS)
_PUNCTUATION = re.compile(char_class(PUNCTUATION_MARKS))
_IDEOGRAPHIC_DOTS = re.compile("。。。+")
_FULLWIDTH_IN_NUMBER = re.compile("[0-9][，．：；](?=[0-9])")
_OPEN_CONTEXT = set(" \n“‘（(《【[：:，,")


def _fold_mark(text: str, start: int, char: str, quote_open: list[bool]) -> str:
    """Canonical form of one punctuation mark at `start`, decided from its neighbours."""
    before, after = neighbours(text, start, start + 1)
    if char in _VARIANTS:
        return _VARIANTS[char]
    if char in _TO_ASCII:  # full-width mark followed by a digit: ASCII only when a digit precedes it too
        return _TO_ASCII[char] if before.isascii() and before.isdigit() else char
    if char in '"＂':
        if not (is_cjk(before) or is_cjk(after) or char == "＂"):
            return char
        opening = quote_open[0] if before not in _OPEN_CONTEXT else True
        quote_open[0] = not opening
        return "“" if opening else "”"
    if char == ".":
        return "。" if is_cjk(before) and not (after.isascii() and after.isalnum()) else char
    if char in "()":
        return _TO_CHINESE[char] if is_cjk(before) or is_cjk(after) else char
    # , ; : ? ! : Chinese beside a Chinese character, ASCII between digits or in Latin text
    if before.isdigit() and after.isdigit():
        return char
    return _TO_CHINESE[char] if is_cjk(before) or is_cjk(after) else char


_PAREN_PAIR = re.compile("[(（]([^()（）\n]{0,80})[)）]")


def _paren_pair_edits(text: str) -> dict[int, str]:
    """Full-width parentheses for a pair with Chinese inside or beside it, e.g. (1)甲方 → （1）甲方."""
    fixes: dict[int, str] = {}
    for match in _PAREN_PAIR.finditer(text):
        if "(" not in match.group() and ")" not in match.group():
            continue
        before, after = neighbours(text, match.start(), match.end())
        if CJK_CHAR.search(match.group(1)) or is_cjk(before) or is_cjk(after):
            fixes[match.start()] = "（"
            fixes[match.end() - 1] = "）"
    return fixes


def _run_end(text: str, start: int, chars: str) -> int:
    end = start + 1
    while end < len(text) and text[end] in chars:
        end += 1
    return end


def punctuation_edits(text: str, scan_from: int = 0) -> list[Edit]:
    """Edits that bring each punctuation family to its canonical form (see the module docstring).

    `scan_from`: where the first mark can be (a caller that already scanned for marks skips ahead).
    """
    edits: list[Edit] = []
    pairs = _paren_pair_edits(text) if "(" in text or ")" in text else {}
    quote_open = [True]
    line_start = 0  # where the search for a line break since the previous mark resumes
    skip_to = 0
    for match in _PUNCTUATION.finditer(text, scan_from):
        start = match.start()
        if start < skip_to:
            continue
        token = match.group()
        if token in "…⋯.":
            end = _run_end(text, start, "…⋯" if token != "." else ".")
            if token != "." or end - start >= 3:
                skip_to = end
                if text[start:end] != "……" and (token != "." or any(map(is_cjk, neighbours(text, start, end)))):
                    edits.append((start, end, "……"))
                continue
            if end - start > 1:
                skip_to = end
                continue  # .. is not a sentence end
        if text.find("\n", line_start, start) != -1:
            quote_open[0] = True  # a straight quote left open does not run into the next line
        line_start = start
        folded = pairs.get(start) or _fold_mark(text, start, token, quote_open)
        if folded != token:
            edits.append((start, start + 1, folded))
    count = len(edits)
    if "。。。" in text:
        edits.extend((m.start(), m.end(), "……") for m in _IDEOGRAPHIC_DOTS.finditer(text))
    for match in _FULLWIDTH_IN_NUMBER.finditer(text):
        edits.append((match.start() + 1, match.end(), _TO_ASCII[text[match.start() + 1]]))
    if len(edits) > count:
        edits.sort()
    return edits
