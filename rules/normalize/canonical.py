"""Canonical form for matching: clean code points, half-width ASCII, one punctuation form, joined lines.

Punctuation convention (one form per family, so a matcher needs one pattern):
- Next to a Chinese character, , ; : ? ! ( ) . and their full-width, small and vertical variants become
  the Chinese full-width marks ，；：？！（）。; between ASCII digits the ASCII form stays (1,200 / 12:30).
- 、 ､ ﹑ → 、; quotes 「」 〝〞 ＂ and straight " beside Chinese → “”; 『』 ＇ → ‘’; runs of … ⋯ or of three
  or more . or 。 → …… (two U+2026).
- Everything else full-width in U+FF01..FF5E (letters, digits, symbols) and ￠￡￢￣￤￥￦ becomes half-width.
Chinese numerals (壹仟贰佰元, 一千二百元) are not touched.

Look-alike ideographs become the unified ideographs they stand for, one character for one: Kangxi Radicals and
CJK Radicals Supplement (⼀ ⽅ ⼄ → 一 方 乙, as some PDF text layers carry them; Unicode's
EquivalentUnifiedIdeograph.txt, `data/compat_ideographs.json`) and CJK Compatibility Ideographs (豈 U+F900 → 豈,
their canonical decomposition).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np

from rules.normalize import compiled
from rules.normalize.chars import CJK, char_class
from rules.normalize.offsets import Edit, StepMap, apply_edits
from rules.normalize.punctuation import PUNCTUATION_MARKS, punctuation_edits
from rules.normalize.width import FULLWIDTH_ASCII, OneToOneFold

# --- step 1: code points and width ---------------------------------------------------------------------
# Every scan starts with a plain character class so the regex engine skips ahead in C: few edits are needed.
_SANITIZE_KINDS = {
    "crlf": "\r",
    "linesep": "\u2028\u2029\x85",
    "invisible": "\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063"
    "\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad",
    "space": "\u00a0\u1680\u202f\u205f\u3000\x0b\x0c" + "".join(map(chr, range(0x2000, 0x200B))),
    "control": "".join(map(chr, [*range(0x00, 0x09), *range(0x0E, 0x20), *range(0x7F, 0x85), *range(0x86, 0xA0)])),
    "invalid": "".join(map(chr, [*range(0xD800, 0xE000), 0xFFFE, 0xFFFF])),
}
_SANITIZE_OUTPUT = {
    "crlf": "\n",
    "linesep": "\n",
    "invisible": "",
    "space": " ",
    "control": " ",
    "invalid": "\ufffd",
}
# Full-width marks that belong to a punctuation family are left to the punctuation step.
_FAMILY_FULLWIDTH = "，．：；？！（）＂＇"
_WIDTH_SYMBOLS = dict(zip("￠￡￢￣￤￥￦", "¢£¬¯¦¥₩", strict=True))
_FOLDS: dict[str, tuple[str, str]] = {
    char: (_SANITIZE_OUTPUT[kind], kind) for kind, chars in _SANITIZE_KINDS.items() for char in chars
}
_FOLDS.update(
    (chr(code), (chr(ascii), "width")) for code, ascii in FULLWIDTH_ASCII.items() if chr(code) not in _FAMILY_FULLWIDTH
)
_FOLDS.update((char, (half, "width")) for char, half in _WIDTH_SYMBOLS.items())


def _compat_ideographs() -> dict[str, str]:
    """Radicals and compatibility ideographs → the unified ideograph each stands for (one character each)."""
    data = json.loads((Path(__file__).resolve().parent / "data" / "compat_ideographs.json").read_text("utf-8"))
    table: dict[str, str] = dict(data["radicals"])
    for first, last in ((0xF900, 0xFAFF), (0x2F800, 0x2FA1F)):
        for code in range(first, last + 1):
            canonical = unicodedata.normalize("NFC", chr(code))
            if canonical != chr(code) and len(canonical) == 1:
                table[chr(code)] = canonical
    return table


_FOLDS.update((char, (ideograph, "ideograph")) for char, ideograph in _compat_ideographs().items())
_FOLD = re.compile(char_class(_FOLDS))
FOLD_CHARS = frozenset(_FOLDS)


def fold_edits(text: str, counts: dict[str, int]) -> list[Edit]:
    """Edits for code points and width (CRLF/CR → \\n, invisible marks dropped, odd spaces and controls →
    space, lone surrogates → U+FFFD, full-width letters, digits, symbols → half-width); counts by kind."""
    edits: list[Edit] = []
    for match in _FOLD.finditer(text):
        start = match.start()
        replacement, kind = _FOLDS[match.group()]
        end = start + 2 if kind == "crlf" and text.startswith("\n", start + 1) else start + 1
        edits.append((start, end, replacement))
        counts[kind] = counts.get(kind, 0) + 1
    return edits


# CR and invisible marks change the length; every other fold is 1:1 and needs no offset map.
_RESIZING = frozenset(char for char, (_, kind) in _FOLDS.items() if kind in ("crlf", "invisible"))
_RESIZE = re.compile(char_class(_RESIZING))
_ONE_TO_ONE = {ord(char): output for char, (output, _) in _FOLDS.items() if char not in _RESIZING}
_ONE_TO_ONE_CLASS = char_class(map(chr, _ONE_TO_ONE))
_ONE_TO_ONE_RUN = re.compile(_ONE_TO_ONE_CLASS + _ONE_TO_ONE_CLASS + "*")  # not "+": that scans slower


def _is_bmp_character(chars: str) -> bool:
    """True when every character is in the BMP and no surrogate (one UTF-16 unit each)."""
    return all(char < "\ud800" or "\ue000" <= char <= "\uffff" for char in chars)


# The BMP folds as one vectorised table look-up, for texts with many of them (a contract's ＿＿＿ blanks and
# ideographic spaces): surrogates stay themselves there, so lone surrogates and supplementary compatibility
# ideographs take the run-by-run path.
_GATHER_FROM = 32
_BMP_ONE_TO_ONE = OneToOneFold(
    {code: ord(output) for code, output in _ONE_TO_ONE.items() if _is_bmp_character(chr(code) + output)}
)


def _translate_run(match: re.Match[str]) -> str:
    return match.group().translate(_ONE_TO_ONE)


def _fold_one_to_one(text: str, found: Counter[str]) -> str:
    """Apply the 1:1 folds among the `found` characters (fold characters of `text` with their counts)."""
    one_to_one = [char for char in found if char not in _RESIZING]
    if not one_to_one:
        return text
    gathered = _BMP_ONE_TO_ONE.table
    if sum(found[char] for char in one_to_one) >= _GATHER_FROM and all(ord(char) in gathered for char in one_to_one):
        return _BMP_ONE_TO_ONE.gather(text)
    return _ONE_TO_ONE_RUN.sub(_translate_run, text)


# A long text whose folds are all in the vectorised table is counted and folded in one pass over its UTF-16 code
# units: the kind of each unit (0: nothing to fold) summed by bincount, instead of one string per fold found.
_VECTOR_FROM = 2048
_KINDS = ("crlf", "linesep", "invisible", "space", "control", "invalid", "width", "ideograph")
_KIND_OF_UNIT = np.zeros(0x10000, dtype=np.uint8)
for _char, (_, _kind) in _FOLDS.items():
    if ord(_char) in _BMP_ONE_TO_ONE.table:
        _KIND_OF_UNIT[ord(_char)] = _KINDS.index(_kind) + 1
_NOT_VECTORISED = re.compile(char_class(char for char in _FOLDS if ord(char) not in _BMP_ONE_TO_ONE.table))


def _fold_vectorised(text: str, counts: dict[str, int]) -> str:
    """Count and fold a text whose folds are all in _BMP_ONE_TO_ONE (no CR, invisible mark or lone surrogate)."""
    units = np.frombuffer(text.encode("utf-16-le"), dtype=np.uint16)
    for index, number in enumerate(np.bincount(_KIND_OF_UNIT[units], minlength=len(_KINDS) + 1)[1:].tolist()):
        if number:
            counts[_KINDS[index]] = counts.get(_KINDS[index], 0) + number
    folded: str = _BMP_ONE_TO_ONE.units[units].tobytes().decode("utf-16-le")
    return folded


def fold(text: str, counts: dict[str, int], scan_from: int = 0) -> tuple[str, StepMap | None]:
    """Apply the folds of fold_edits; return the text and its map (None when no length changed).

    `scan_from`: where the first fold can be (a caller that already scanned for folds skips ahead).

    The characters to fold are counted in C; 1:1 folds are translated run by run or, when there are many, in one
    vectorised look-up; only CR and invisible marks, which change the length, become edits with a map.
    """
    first = _FOLD.search(text, scan_from)
    if first is None:
        return text, None
    if len(text) - first.start() >= _VECTOR_FROM and _NOT_VECTORISED.search(text, first.start()) is None:
        return _fold_vectorised(text, counts), None
    found = Counter(_FOLD.findall(text, first.start()))
    for char, number in found.items():
        kind = _FOLDS[char][1]
        counts[kind] = counts.get(kind, 0) + number
    folded = _fold_one_to_one(text, found)
    if not any(char in _RESIZING for char in found):
        return folded, None
    edits: list[Edit] = []
    for match in _RESIZE.finditer(text, first.start()):
        start = match.start()
        # CR LF is one line end in the text as sent: a CR before U+2028 (folded to LF above) is a line end of its own
        end = start + 2 if match.group() == "\r" and text.startswith("\n", start + 1) else start + 1
        edits.append((start, end, _FOLDS[match.group()][0]))
    return apply_edits(folded, edits)  # the 1:1 folds kept every offset: the edits' positions hold


# A fold or a mark of the punctuation step: where neither occurs, both steps are skipped with one scan.
CANONICAL_TRIGGER = re.compile(char_class([*_FOLDS, *PUNCTUATION_MARKS]))

__all__ = ["CANONICAL_TRIGGER", "CJK", "FOLD_CHARS", "fold", "fold_edits", "punctuation_edits", "whitespace_edits"]


# --- step 3: spaces and line breaks --------------------------------------------------------------------
_CHINESE_PUNCTUATION = "，。；：？！、（）“”‘’…《》【】"
_WORD = f"[^ \t\n{re.escape(_CHINESE_PUNCTUATION)}]"
# A whole run of spaces, tabs and line breaks, but neither a paragraph break (exactly two line breaks between text)
# nor a single space between two characters that are not Chinese punctuation, which both stay as they are: a
# contract holds dozens of each, and skipping them in C spares the loop one turn each.
_WHITESPACE = re.compile(f"[ \t\n](?<![ \t\n][ \t\n])(?!(?<=[^ \t\n]\n)\n[^ \t\n])(?!(?<={_WORD} ){_WORD})[ \t\n]*")
_SENTENCE_END = set("。！？；：.!?;:…")
_CLOSERS = set("”’）)」』】》")
_STRUCTURE = re.compile(
    r"第[一二三四五六七八九十百千零〇两\d]+[条章节款项部篇]"
    r"|[一二三四五六七八九十百]+[、.．]"
    r"|[（(][一二三四五六七八九十\d]{1,3}[)）]"
    r"|\d{1,3}(?:[.．]\d{1,3})*[、.．)）](?!\d)"
    r"|[①-⑳⑴-⒇•·●○■□◆◇▲△※\-*]"
    r"|(?:附件|附[:：]|注[:：]|备注|说明[:：]|签[字章署])"
    f"|[{CJK}]{{1,8}}[:：]"
    r"|[\u2500-\u257f]"
)
_HEADING_MAX = 30
_TITLE_END = re.compile(
    "(?:合同|协议|协议书|合同书|确认书|承诺书|委托书|通知|公告|章程|办法|规定|须知|清单|说明|申请|声明|证明|报告|函)$"
)
_FIELD = re.compile(f"[{CJK}]{{1,8}}[:：]")
_LINE_PUNCTUATION = re.compile(char_class(_CHINESE_PUNCTUATION + ",.;:?!"))


def _keeps_break(text: str, newline: int, after: int) -> bool:
    """True when the single line break between text[:newline] and text[after:] is structure, not a wrap."""
    if newline == 0 or after >= len(text):
        return True
    last = text[newline - 1]
    if last in _SENTENCE_END or "\u2500" <= last <= "\u257f":
        return True
    if last in _CLOSERS and newline > 1 and text[newline - 2] in _SENTENCE_END:
        return True
    if _STRUCTURE.match(text, after):
        return True
    line_start = text.rfind("\n", 0, newline) + 1
    line = text[line_start:newline]
    has_punctuation = _LINE_PUNCTUATION.search(line) is not None
    if _STRUCTURE.match(line) and len(line) <= _HEADING_MAX and not has_punctuation:
        return True  # an article heading such as 第三条 租金 stands on its own line
    if _FIELD.match(line):
        return True  # a "label: value" line such as 乙方：李四 is a unit of its own
    # a title line such as 房屋租赁合同
    return line_start == 0 and len(line) <= 25 and not has_punctuation and _TITLE_END.search(line) is not None


def _beside_punctuation(text: str, start: int, end: int) -> bool:
    return text[start - 1] in _CHINESE_PUNCTUATION or text[end] in _CHINESE_PUNCTUATION


def whitespace_edits(text: str, counts: dict[str, int]) -> list[Edit]:
    """Edits that collapse space runs, trim lines, keep paragraph breaks and join hard-wrapped lines."""
    edits: list[Edit] = []
    if " " not in text and "\n" not in text and "\t" not in text:
        return edits  # three memchr-like scans are cheaper than one regex scan
    kernels = compiled.kernels
    if kernels is not None:  # the same loop compiled; a single line break is still decided by _keeps_break
        edits, removed, joined = kernels.whitespace(text, _keeps_break)
        if removed is not None:
            counts["spaces_removed"] = counts.get("spaces_removed", 0) + removed
        if joined is not None:
            counts["lines_joined"] = counts.get("lines_joined", 0) + joined
        return edits
    length = len(text)
    add_edit = edits.append
    for match in _WHITESPACE.finditer(text):
        start, end = match.span()
        run = match.group()
        at_edge = start == 0 or end == length
        if run == "\n\n" and not at_edge:
            continue  # a paragraph break stays as it is
        if run == " " and not at_edge and not _beside_punctuation(text, start, end):
            continue  # a single space between words stays
        if "\n" not in run:  # spaces and tabs: gone at an edge or beside Chinese punctuation, else one space
            replacement = "" if at_edge or _beside_punctuation(text, start, end) else " "
            if replacement != run:
                counts["spaces_removed"] = counts.get("spaces_removed", 0) + len(run) - len(replacement)
                add_edit((start, end, replacement))
            continue
        if run.count("\n") >= 2:
            replacement = "" if at_edge else "\n\n"
        elif at_edge:
            replacement = ""
        elif _keeps_break(text, start, end):  # one line break, at `start`
            replacement = "\n"
        else:
            counts["lines_joined"] = counts.get("lines_joined", 0) + 1
            latin = text[start - 1].isascii() and text[start - 1].isalnum() and text[end].isascii()
            replacement = " " if latin and text[end].isalnum() else ""
        if replacement != run:
            counts["spaces_removed"] = counts.get("spaces_removed", 0) + len(run) - len(replacement)
            add_edit((start, end, replacement))
    return edits
