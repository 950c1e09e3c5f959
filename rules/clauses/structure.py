"""Document structure for clause matching: width folding, paragraphs, sentences, headings, drafting guidance."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# Full-width ASCII variants (！ … ～) and the ideographic space fold one-to-one onto ASCII, so a folded text
# keeps every offset of the text it came from; raw and normalizer output then match the same patterns.
_FOLD_TABLE = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_FOLD_TABLE |= {ord("“"): ord('"'), ord("”"): ord('"'), ord("‘"): ord("'"), ord("’"): ord("'")}

_CN_NUMERAL = "一二三四五六七八九十百零〇"
# Article markers at the start of a line, outermost first; the index of the alternative that matched is the
# marker's nesting level (第一章 > 第十条 > 十、 > （一） > 1.1 / 4-3 > 1. > (1) > ① > ☐).
_MARKER_LEVELS = (
    rf"第[{_CN_NUMERAL}\d]+[章节]",
    rf"第[{_CN_NUMERAL}\d]+条",
    rf"[{_CN_NUMERAL}]+[、,.]",
    rf"\(\s*[{_CN_NUMERAL}]+\s*\)",
    r"\d+(?:\.\d+)+|\d+-\d+",
    r"\d+\s*[、.]",
    r"\(\s*\d+\s*\)|\d+\s*\)",
    r"[①-⑳]",
    r"[☐□■√※*]",
)
ARTICLE_MARK = re.compile("^\\s*(?:" + "|".join(f"(?P<m{n}>{p})" for n, p in enumerate(_MARKER_LEVELS)) + ")\\s*")
# A heading title ends at a colon, a blank slot, a wide gap or the end of the line; a comma means prose.
# A title ending in 为/是/于 opens a sentence with a slot ("期限为＿＿年"), not a heading.
_TITLE = re.compile(
    r"[^\s,;。:_()]{2,24}?(?<![为是于按由向])(?=\s*(?:[:_]|$|\s{2,}))|[^\s,;。:_()]{2,10}?(?=[.。]\s*$)"
)
_FIELD_LABEL = re.compile(r"^\s*([^\s,;。:_()]{2,10})\s*:")
_BLANK_RUN = re.compile(r"_{2,}|\s{3,}|×{2,}|x{2,}")
_SENTENCE_END = re.compile(r"[。;!?](?:[\"')]*)|(?<![\d.])\.(?![\d.])|:(?=\s*(?:[①-⑳]|\(\d|\d[.、)]|$))")
_TERMINAL = "。;!?:)]\"'"
_GUIDANCE_OPENERS = ("如:", "如,", "例如", "注", "说明", "填写", "含", "包括", "当事人", "此", "可", "应", "按")
_GUIDANCE_SECTION = re.compile(r"^(?:填写说明|使用说明|[^\s]{0,12}使用说明|说明|编写说明)\s*:?$")
_NOTE_LINE = re.compile(r"^\s*注\s*:")
# A short line naming the document ("北京市机动车驾驶培训服务合同") ends a guidance preface.
_DOCUMENT_TITLE = re.compile(r"^[^,;。:]{2,30}(?:合同|协议|协议书|合同书)(?:\(.{0,12}\))*$")
_MAX_ARTICLE = 1500  # past this an "article" is a whole chapter: highlight the paragraph instead
_SLOT_BEFORE = re.compile(r"(?:_|:|。|^)\s*$")


_FOLDABLE = re.compile("[" + "".join(chr(code) for code in _FOLD_TABLE) + "]")


def fold(text: str) -> str:
    """Return text with full-width ASCII variants folded to ASCII; offsets are unchanged."""
    # str.translate walks every character in Python-level lookups; replacing only the few distinct
    # characters present runs at memchr speed on long documents.
    for char in set(_FOLDABLE.findall(text)):
        text = text.replace(char, chr(_FOLD_TABLE[ord(char)]))
    return text


def is_blank(text: str) -> bool:
    """True when text holds nothing but blanks, slots, punctuation and dates to fill (an unfilled template)."""
    stripped = re.sub(r"[\s_×x.,;:。、()%\-—从自至起止到年月日元第种项]", "", _strip_brackets(text))
    return not stripped


def blank_run(text: str) -> bool:
    """True when text contains a fill-in slot (＿＿＿, a wide gap, ××)."""
    return _BLANK_RUN.search(text) is not None


def marker_level(line: str) -> int | None:
    """Return the nesting level of the article marker opening line, or None for running text."""
    match = ARTICLE_MARK.match(line)
    if match is None or match.lastgroup is None:
        return None
    return int(match.lastgroup[1:])


@dataclass(frozen=True)
class Paragraph:
    """A paragraph: one line, or hard-wrapped lines joined back together; end is exclusive."""

    start: int
    end: int
    level: int | None


@dataclass(frozen=True)
class Heading:
    """An article heading title (第七条 验收方法 → 验收方法), the article it opens and whether it is a slot."""

    start: int
    title_start: int
    title_end: int
    article_end: int
    body_blank: bool
    numbered: bool
    level: int


@dataclass(frozen=True)
class Structure:
    """Offsets of paragraphs, sentences, headings and drafting guidance in one folded text."""

    text: str
    paragraphs: list[Paragraph]
    paragraph_starts: list[int]
    sentence_bounds: list[int]
    headings: list[Heading]
    heading_starts: list[int]
    guidance_starts: list[int]
    guidance_ends: list[int]
    articles: list[tuple[int, int]]
    article_starts: list[int]

    def article_at(self, offset: int) -> tuple[int, int]:
        """Return the outermost numbered article holding offset, or its paragraph when none (or too long)."""
        index = bisect.bisect_right(self.article_starts, offset) - 1
        if index >= 0:
            start, end = self.articles[index]
            if offset < end and end - start <= _MAX_ARTICLE:
                return start, end
        paragraph = self.paragraph_at(offset)
        return paragraph.start, paragraph.end

    def paragraph_at(self, offset: int) -> Paragraph:
        """Return the paragraph holding offset."""
        index = max(bisect.bisect_right(self.paragraph_starts, offset) - 1, 0)
        return self.paragraphs[index]

    def sentence_at(self, offset: int) -> tuple[int, int]:
        """Return (start, end) of the sentence holding offset, never crossing its paragraph."""
        paragraph = self.paragraph_at(offset)
        index = bisect.bisect_right(self.sentence_bounds, offset)
        start = self.sentence_bounds[index - 1] if index else 0
        end = self.sentence_bounds[index] if index < len(self.sentence_bounds) else len(self.text)
        return max(start, paragraph.start), min(end, paragraph.end)

    def heading_at(self, start: int, end: int) -> Heading | None:
        """Return the heading whose title contains [start, end), if any."""
        index = bisect.bisect_right(self.heading_starts, start) - 1
        if index >= 0:
            heading = self.headings[index]
            if end <= heading.title_end:
                return heading
        return None

    def in_guidance(self, offset: int) -> bool:
        """True when offset lies inside bracketed or trailing drafting guidance."""
        index = bisect.bisect_right(self.guidance_starts, offset) - 1
        return index >= 0 and offset < self.guidance_ends[index]


def _lines(text: str) -> list[tuple[int, int]]:
    """Return (start, end) of every non-blank line, trimmed of surrounding whitespace."""
    found = []
    for match in re.finditer(r"[^\n]+", text):
        line = match.group()
        if not line.strip():
            continue
        lead = len(line) - len(line.lstrip())
        found.append((match.start() + lead, match.start() + len(line.rstrip())))
    return found


def _continues(text: str, line: tuple[int, int], following: tuple[int, int]) -> bool:
    """True when a hard-wrapped line runs on into the following one."""
    body = text[line[0] : line[1]]
    # Wrapped template lines are dense prose; a form line with gaps ("有效期限: 年 月 日至…") stands alone.
    if len(body) < 20 or body[-1] in _TERMINAL or "__" in body or "│" in body or re.search(r"\s{2,}", body):
        return False
    return ARTICLE_MARK.match(text[following[0] : following[1]]) is None


def _paragraphs(text: str) -> list[Paragraph]:
    """Group lines into paragraphs, re-joining lines that an old template wrapped at a fixed width."""
    lines = _lines(text)
    paragraphs: list[Paragraph] = []
    index = 0
    while index < len(lines):
        start, end = lines[index]
        while index + 1 < len(lines) and _continues(text, lines[index], lines[index + 1]):
            index += 1
            end = lines[index][1]
        paragraphs.append(Paragraph(start, end, marker_level(text[start:end])))
        index += 1
    return paragraphs or [Paragraph(0, len(text), None)]


def _article_ends(paragraphs: list[Paragraph]) -> list[int]:
    """Return, per paragraph, where the article it opens ends: before the next marker as high as its own."""
    ends = [p.end for p in paragraphs]
    # Scan backwards keeping, per level, the index of the nearest following paragraph at or above it.
    next_at_or_above: dict[int, int] = {}
    for position in range(len(paragraphs) - 1, -1, -1):
        level = paragraphs[position].level
        if level is not None:
            stop = min((i for lv, i in next_at_or_above.items() if lv <= level), default=len(paragraphs))
            ends[position] = paragraphs[stop - 1].end
            next_at_or_above[level] = position
    return ends


def _headings(text: str, paragraphs: list[Paragraph], ends: list[int]) -> list[Heading]:
    """Find heading titles after article markers and form field labels ("付款方式:")."""
    headings: list[Heading] = []
    for position, paragraph in enumerate(paragraphs):
        line_end = text.find("\n", paragraph.start, paragraph.end)
        line = text[paragraph.start : paragraph.end if line_end == -1 else line_end]
        mark = ARTICLE_MARK.match(line)
        found = _TITLE.match(line, mark.end()) if mark else _FIELD_LABEL.match(line)
        if found is None:
            continue
        group = 0 if mark else 1
        title = (paragraph.start + found.start(group), paragraph.start + found.end(group))
        article_end = ends[position]
        body_blank = is_blank(text[title[1] : article_end])
        level = 9 if paragraph.level is None else paragraph.level
        headings.append(Heading(paragraph.start, title[0], title[1], article_end, body_blank, mark is not None, level))
    return headings


def _strip_brackets(text: str) -> str:
    """Return text without its parenthesised passages (drafting notes do not fill a slot)."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\([^()]*\)", "", text)
    return text


def _bracket_guidance(text: str) -> list[tuple[int, int]]:
    """Return long bracketed notes that follow a slot or open a line, or that read as instructions."""
    spans: list[tuple[int, int]] = []
    stack: list[int] = []
    for bracket in re.finditer(r"[()]", text):
        offset = bracket.start()
        if bracket.group() == "(":
            stack.append(offset)
            continue
        if not stack:
            continue
        opened = stack.pop()
        if stack:
            continue  # nested brackets belong to the outer note
        inner = text[opened + 1 : offset].strip()
        line_start = text.rfind("\n", 0, opened) + 1
        after_slot = _SLOT_BEFORE.search(text[max(line_start, opened - 4) : opened]) is not None
        if len(inner) >= 12 and (after_slot or inner.startswith(_GUIDANCE_OPENERS)):
            spans.append((opened, offset + 1))
    return spans


def _section_guidance(text: str, paragraphs: list[Paragraph]) -> list[tuple[int, int]]:
    """Return 说明 sections (to the document title after a preface, else to the end) and 注: lines."""
    spans: list[tuple[int, int]] = []
    for position, paragraph in enumerate(paragraphs):
        line = re.sub(r"\s", "", text[paragraph.start : paragraph.end])
        if _NOTE_LINE.match(line):
            spans.append((paragraph.start, paragraph.end))
        if not _GUIDANCE_SECTION.match(line):
            continue
        end = len(text)
        for following in paragraphs[position + 1 :]:
            if following.level == 1 or _DOCUMENT_TITLE.match(re.sub(r"\s", "", text[following.start : following.end])):
                end = following.start
                break
        spans.append((paragraph.start, end))
    return spans


def _rank_chapters(paragraphs: list[Paragraph], guidance: list[tuple[int, int]]) -> list[Paragraph]:
    """Nest 第X条 inside 一、 chapters when a document opens with 一、 (labour contracts do); else the reverse."""
    starts = [start for start, _ in guidance]
    first: dict[int, int] = {}
    for position, paragraph in enumerate(paragraphs):
        index = bisect.bisect_right(starts, paragraph.start) - 1
        if paragraph.level in (1, 2) and not (index >= 0 and paragraph.start < guidance[index][1]):
            first.setdefault(paragraph.level, position)
    if len(first) < 2 or first[1] < first[2]:
        return paragraphs
    swap = {1: 2, 2: 1}
    return [Paragraph(p.start, p.end, None if p.level is None else swap.get(p.level, p.level)) for p in paragraphs]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return sorted, non-overlapping spans covering the same offsets."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def document_structure(text: str) -> Structure:
    """Segment a folded text into paragraphs, sentences, headings and guidance, all as offsets."""
    paragraphs = _paragraphs(text)
    bounds = sorted({0, *(m.end() for m in _SENTENCE_END.finditer(text)), *(p.start for p in paragraphs)})
    guidance = _merge(_bracket_guidance(text) + _section_guidance(text, paragraphs))
    paragraphs = _rank_chapters(paragraphs, guidance)
    ends = _article_ends(paragraphs)
    headings = _headings(text, paragraphs, ends)
    articles = _articles(paragraphs, ends)
    return Structure(
        text=text,
        paragraphs=paragraphs,
        paragraph_starts=[p.start for p in paragraphs],
        sentence_bounds=bounds,
        headings=headings,
        heading_starts=[h.title_start for h in headings],
        guidance_starts=[start for start, _ in guidance],
        guidance_ends=[end for _, end in guidance],
        articles=articles,
        article_starts=[start for start, _ in articles],
    )


def _articles(paragraphs: list[Paragraph], ends: list[int]) -> list[tuple[int, int]]:
    """Return (start, end) of every article at the document's outermost numbering level (chapters aside)."""
    levels = [p.level for p in paragraphs if p.level]
    if not levels:
        return []
    top = min(levels)
    return [
        (paragraph.start, ends[position]) for position, paragraph in enumerate(paragraphs) if paragraph.level == top
    ]
