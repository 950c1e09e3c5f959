"""Traditional → simplified script with OpenCC, choosing hk2s, tw2s or t2s from what the text looks like."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import opencc

from rules.normalize.offsets import Edit, StepMap, apply_edits

# Variant characters only one region writes (from OpenCC's tw2t and hk2t tables, leaving out those that are
# also everyday standard or simplified characters, such as 才 床 群 温 户 税): evidence for tw2s or hk2s.
_TAIWAN_VARIANTS = re.compile("[裡著汙洩麵]")
_HONG_KONG_VARIANTS = re.compile("[説綫衞衹鋭閲敍鈎粧]")
NO_CONVERSION = "none"
_SEGMENT = re.compile("[^。！？\n]*[。！？\n]?")
_LINE = re.compile("[^\n]*\n?")


@cache
def converter(config: str) -> opencc.OpenCC:
    """Return a cached OpenCC converter for `config` (building one reads its dictionaries)."""
    return opencc.OpenCC(config)


_SUPPLEMENTARY = re.compile("[\U00010000-\U0010ffff]")


@cache
def _traditional_chars() -> str:
    """Every BMP character OpenCC t2s changes on its own (BMP only: tested in O(1))."""
    chars = "".join(chr(code) for low, high in ((0x3400, 0xA000), (0xF900, 0xFB00)) for code in range(low, high))
    converted = converter("t2s").convert(chars)
    return "".join(a for a, b in zip(chars, converted, strict=False) if a != b)


@cache
def traditional_chars() -> frozenset[str]:
    """The characters of _traditional_chars as a set (for callers that collected a text's characters already)."""
    return frozenset(_traditional_chars())


@cache
def _traditional_bmp() -> re.Pattern[str]:
    """A class of every BMP character OpenCC t2s changes on its own."""
    return re.compile("[" + _traditional_chars() + "]")


@cache
def _changed_bmp(config: str) -> re.Pattern[str]:
    """A class of every BMP character `config` changes on its own: t2s's, and for hk2s and tw2s also the regional
    variants they fold (著 -> 着 under tw2s, though t2s keeps 著), so no line they would change is skipped."""
    if config == "t2s":
        return _traditional_bmp()
    chars = "".join(chr(code) for low, high in ((0x3400, 0xA000), (0xF900, 0xFB00)) for code in range(low, high))
    converted = converter(config).convert(chars)
    changed = {a for a, b in zip(chars, converted, strict=False) if a != b} | traditional_chars()
    return re.compile("[" + "".join(sorted(changed)) + "]")


@cache
def _traditional_or_supplementary() -> re.Pattern[str]:
    """One class for both scans of has_traditional, so a simplified text is read once."""
    return re.compile("[" + _traditional_chars() + "\U00010000-\U0010ffff]")


def has_traditional(text: str) -> bool:
    """True when OpenCC t2s would change something; a cheap scan instead of a conversion for most texts."""
    match = _traditional_or_supplementary().search(text)
    if match is None:
        return False
    if match.group() < "\U00010000":
        return True
    # Rare characters outside the BMP come first: a BMP traditional one later, or ask OpenCC itself.
    return _traditional_bmp().search(text, match.end()) is not None or converter("t2s").convert(text) != text


def choose_config(text: str, *, cantonese: bool = False) -> str:
    """Pick hk2s, tw2s or t2s from region-specific variant characters (Cantonese wording means Hong Kong)."""
    if cantonese and _TAIWAN_VARIANTS.search(text) is None:  # no Taiwan variant to outnumber Hong Kong's: one scan
        return "hk2s"
    taiwan = len(_TAIWAN_VARIANTS.findall(text))
    hong_kong = len(_HONG_KONG_VARIANTS.findall(text))
    if taiwan > hong_kong:
        return "tw2s"
    if hong_kong > taiwan or cantonese:
        return "hk2s"
    return "t2s"


def to_simplified(text: str, *, cantonese: bool = False) -> tuple[str, str]:
    """Return (simplified text, config used); config is "none" when the text has nothing traditional."""
    if not has_traditional(text):
        return text, NO_CONVERSION
    config = choose_config(text, cantonese=cantonese)
    return converter(config).convert(text), config


def _segment_edits(text: str, config: str, offset: int = 0, segments: re.Pattern[str] = _LINE) -> list[Edit]:
    """Edits for a conversion that changes length: by line, then by sentence, trimmed to what differs."""
    convert = converter(config).convert
    edits: list[Edit] = []
    for match in segments.finditer(text):
        segment = match.group()
        if not segment:
            continue
        converted = convert(segment)
        if converted == segment:
            continue
        if len(converted) == len(segment):
            edits.append((offset + match.start(), offset + match.end(), converted))
            continue
        if segments is _LINE:
            edits.extend(_segment_edits(segment, config, offset + match.start(), _SEGMENT))
            continue
        prefix = 0
        limit = min(len(segment), len(converted))
        while prefix < limit and segment[prefix] == converted[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and segment[-1 - suffix] == converted[-1 - suffix]:
            suffix += 1
        start = offset + match.start() + prefix
        edits.append((start, offset + match.end() - suffix, converted[prefix : len(converted) - suffix]))
    return edits


def _lines_with(text: str, *patterns: re.Pattern[str]) -> list[tuple[int, int]]:
    """Sorted (start, end) of the lines, without their newline, that hold a match of any of `patterns`."""
    lines: set[tuple[int, int]] = set()
    for pattern in patterns:
        done = 0
        for match in pattern.finditer(text):
            if match.start() < done:
                continue
            start = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.start())
            done = len(text) if end == -1 else end
            lines.add((start, done))
    return sorted(lines)


def _converted_lines(text: str, lines: list[tuple[int, int]], convert: Callable[[str], str]) -> list[str]:
    """Each line converted: all of them in one OpenCC call, joined by line breaks (no dictionary entry holds a line
    break, so a conversion never reaches across one), one call per line if the line count came out different."""
    texts = [text[start:end] for start, end in lines]
    if len(texts) > 1:
        converted = convert("\n".join(texts)).split("\n")
        if len(converted) == len(texts):
            return converted
    return [convert(line) for line in texts]


def simplified_step(
    text: str, *, cantonese: bool = False, traditional: bool | None = None
) -> tuple[str, StepMap | None, str]:
    """Convert to simplified for the pipeline; return (text, map or None when lengths match, config).

    `traditional`: whether has_traditional(text) holds, when the caller already knows (None: scan for it).
    Only lines holding a traditional character go through OpenCC, so a simplified document with one quoted
    traditional line costs one short conversion.
    """
    if not (has_traditional(text) if traditional is None else traditional):
        return text, None, NO_CONVERSION
    config = choose_config(text, cantonese=cantonese)
    convert = converter(config).convert
    if "\n" not in text:  # one line, and has_traditional found something on it
        converted = convert(text)
        if len(converted) == len(text):
            return converted, None, config
        new_text, step = apply_edits(text, _segment_edits(text, config, 0, _SEGMENT))
        return new_text, step, config
    edits: list[Edit] = []
    lines = _lines_with(text, _changed_bmp(config), _SUPPLEMENTARY)
    for (line_start, line_end), converted in zip(lines, _converted_lines(text, lines, convert), strict=True):
        line = text[line_start:line_end]
        if converted == line:
            continue
        if len(converted) == len(line):
            edits.append((line_start, line_end, converted))
        else:
            edits.extend(_segment_edits(line, config, line_start, _SEGMENT))
    new_text, step = apply_edits(text, edits)
    return new_text, step, config
