"""Punctuation: one form per family, so a matcher needs one pattern (convention in rules.normalize.canonical).

`punctuation_edits` decides every mark in turn and is the reference; `punctuation_step` gives the same text with
the marks that only look at their neighbours (, ; : ? ! and a lone .) rewritten by C-level regex substitutions.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

from rules.normalize import compiled
from rules.normalize.chars import CJK, CJK_CHAR, char_class, is_cjk, neighbours
from rules.normalize.offsets import Edit, StepMap, apply_edits, compiled_step

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
PUNCTUATION_MARK_SET = frozenset(PUNCTUATION_MARKS)
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


# A pair is an opening parenthesis, at most 80 characters without a parenthesis or line break, and a closing one,
# so pairs never overlap. Only a pair with an ASCII parenthesis can need a fix: one opened by ( (a literal-led scan)
# or one opened by （ and closed by ), looked for only in a text with a ) (the full-width pairs common in Chinese text
# are then never matched one by one).
_ASCII_OPENED = re.compile("\\([^()（）\n]{0,80}[)）]")
_ASCII_CLOSED = re.compile("（[^()（）\n]{0,80}\\)")


def _ascii_pairs(text: str) -> list[tuple[int, int]]:
    """(start, end) of every parenthesis pair with an ASCII parenthesis."""
    pairs = [match.span() for match in _ASCII_OPENED.finditer(text)]
    if ")" in text:
        pairs += [match.span() for match in _ASCII_CLOSED.finditer(text)]
    return pairs


def _paren_pair_edits(text: str) -> dict[int, str]:
    """Full-width parentheses for a pair with Chinese inside or beside it, e.g. (1)甲方 → （1）甲方."""
    fixes: dict[int, str] = {}
    for start, end in _ascii_pairs(text):
        before, after = neighbours(text, start, end)
        if CJK_CHAR.search(text, start + 1, end - 1) or is_cjk(before) or is_cjk(after):
            fixes[start] = "（"
            fixes[end - 1] = "）"
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
    return _with_unmarked_edits(text, edits)


def _with_unmarked_edits(text: str, edits: list[Edit], numbers: bool = True) -> list[Edit]:
    """`edits` (sorted) plus the changes no punctuation mark starts: 。。。 runs and full-width marks in numbers
    (`numbers` False: the caller knows the text has none)."""
    count = len(edits)
    if "。。。" in text:
        edits.extend((m.start(), m.end(), "……") for m in _IDEOGRAPHIC_DOTS.finditer(text))
    if numbers:
        for match in _FULLWIDTH_IN_NUMBER.finditer(text):
            edits.append((match.start() + 1, match.end(), _TO_ASCII[text[match.start() + 1]]))
    if len(edits) > count:
        edits.sort()
    return edits


def unmarked_edits(text: str, numbers: bool = True) -> list[Edit]:
    """punctuation_edits for a text holding none of PUNCTUATION_MARKS (the caller scanned for them);
    `numbers` False: the text has no full-width mark between digits."""
    if "。。。" not in text and not (numbers and _FULLWIDTH_IN_NUMBER.search(text)):
        return []  # most texts: two C-level scans, no list to sort
    return _with_unmarked_edits(text, [], numbers)


# , ; : ? ! beside a Chinese character (one space between allowed) and a lone . after one (not before a Latin letter
# or digit) are decided by their neighbours alone, and no mark's new form changes what decides another (none is
# Chinese, a space, a digit or a dot): each such mark is substituted in C. The rest need the loop's context.
def _beside_chinese(mark: str) -> re.Pattern[str]:
    escaped = re.escape(mark)
    return re.compile(f"{escaped}(?:(?<=[{CJK}]{escaped})|(?<=[{CJK}] {escaped})|(?= ?[{CJK}]))")


_NEIGHBOUR_DECIDED = {mark: (_beside_chinese(mark), _TO_CHINESE[mark]) for mark in ",;:?!"}
_NEIGHBOUR_DECIDED["."] = (re.compile(f"\\.(?:(?<=[{CJK}]\\.)|(?<=[{CJK}] \\.))(?!\\.)(?! ?[0-9A-Za-z])"), "。")
# One mark, or a run of two or more dots; a class first, so the engine skips ahead in C (an alternation of a
# class and a literal would be tried at every position).
_CONTEXT_DECIDED = re.compile(char_class('"＂…⋯().' + "".join(_VARIANTS)) + "(?:(?<!\\.)|(?<=\\.)\\.+)")
_CONTEXT_MARKS = frozenset('"＂…⋯()' + "".join(_VARIANTS))  # a lone . is neighbour-decided; a run of them is not


def _context_edits(text: str, scan_from: int, marks: AbstractSet[str] | None, numbers: bool) -> list[Edit]:
    """punctuation_edits for every mark but those of _NEIGHBOUR_DECIDED (quotes, brackets, variants, dot runs);
    `marks`: the punctuation marks the text holds, if the caller knows them; `numbers`: see unmarked_edits."""
    if marks is not None and marks.isdisjoint(_CONTEXT_MARKS) and not ("." in marks and ".." in text):
        return _with_unmarked_edits(text, [], numbers)  # no mark for the loop: its scan is skipped
    within = text if marks is None else marks
    if marks is not None:  # no loop mark lies before the first of them: the scan starts there (C-level finds)
        firsts = [text.find(mark) for mark in marks if mark in _CONTEXT_MARKS]
        if "." in marks and ".." in text:
            firsts.append(text.find(".."))
        scan_from = max(scan_from, min(firsts))
    edits: list[Edit] = []
    pairs = _paren_pair_edits(text) if "(" in within or ")" in within else {}
    quote_open = [True]
    line_start = 0
    skip_to = 0
    for match in _CONTEXT_DECIDED.finditer(text, scan_from):
        start = match.start()
        if start < skip_to:
            continue
        token = match.group()
        if token[0] == ".":  # a run of two or more
            if len(token) >= 3 and any(map(is_cjk, neighbours(text, start, match.end()))):
                edits.append((start, match.end(), "……"))
            continue
        if token in "…⋯":
            skip_to = _run_end(text, start, "…⋯")
            if text[start:skip_to] != "……":
                edits.append((start, skip_to, "……"))
            continue
        if text.find("\n", line_start, start) != -1:
            quote_open[0] = True  # skipped marks never touch the quote state, so resetting here is the same
        line_start = start
        folded = pairs.get(start) or _fold_mark(text, start, token, quote_open)
        if folded != token:
            edits.append((start, start + 1, folded))
    return _with_unmarked_edits(text, edits, numbers)


def punctuation_step(
    text: str, scan_from: int = 0, marks: AbstractSet[str] | None = None, numbers: bool = True
) -> tuple[str, StepMap | None, int]:
    """Apply punctuation_edits(text, scan_from); return the text, its map (None when no length changed) and
    the number of marks changed. Marks decided by their neighbours alone are substituted in C.

    `marks`: the punctuation marks the text holds, when the caller collected them (None: looked up here);
    `numbers`: see unmarked_edits. The compiled kernel, when built, applies punctuation_edits itself.
    """
    kernels = compiled.kernels
    if kernels is not None:
        folded, count, columns = kernels.punctuate(text)
        return folded, compiled_step(columns, len(text), len(folded)), count
    edits = _context_edits(text, scan_from, marks, numbers)
    count = len(edits)
    folded = text
    for mark, (pattern, chinese) in _NEIGHBOUR_DECIDED.items():
        if mark in (text if marks is None else marks):
            folded, number = pattern.subn(chinese, folded)
            count += number
    if not edits:
        return folded, None, count
    folded, step = apply_edits(folded, edits)  # every substitution kept the length: the edits' offsets hold
    return folded, step, count
