"""Document structure for clause matching: width folding, paragraphs, sentences, headings, drafting guidance."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from rules.clauses.guidance import bracket_guidance, merge_spans, section_guidance
from rules.normalize.width import width_fold

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
# A form field label ("付款方式:"), matched in place at a paragraph's start.
_FIELD_AT = re.compile(r"\s*([^\s,;。:_()]{2,10})\s*:")
# A character that is more than a blank, a slot, punctuation or a date to fill in.
_CONTENT = re.compile(r"[^\s_×x.,;:。、()%\-—从自至起止到年月日元第种项]")
_BLANK_RUN = re.compile(r"_{2,}|\s{3,}|×{2,}|x{2,}")
# Every alternative opens with a literal, so the regex engine skips straight to candidate marks.
_SENTENCE_END = re.compile(
    r"""。["')]*|;["')]*|!["')]*|\?["')]*|\.(?<![\d.]\.)(?![\d.])|:(?=\s*(?:[①-⑳]|\(\d|\d[.、)]|$))"""
)
_TERMINAL = "。;!?:)]\"'"
# The marker pattern without its "^", to match a paragraph in place (text, start, end) without slicing it.
_MARK_AT = re.compile(ARTICLE_MARK.pattern[1:])
_MARK_FIRST = frozenset("第" + _CN_NUMERAL + "(" + "".join(map(chr, range(ord("①"), ord("⑳") + 1))) + "☐□■√※*")
_LINE = re.compile(r"\S(?:[^\n]*\S)?")  # a line trimmed of surrounding whitespace, as str.strip() would
_BRACKETED = re.compile(r"\([^()]*\)")
_WIDE_GAP = re.compile(r"\s{2,}")
_MAX_ARTICLE = 1500  # past this an "article" is a whole chapter: highlight the paragraph instead


def fold(text: str) -> str:
    """Return text with full-width ASCII variants folded to ASCII (`rules.normalize.width`); offsets unchanged.

    Raw and normalizer output then match the same patterns."""
    return width_fold(text)


def is_blank(text: str) -> bool:
    """True when text holds nothing but blanks, slots, punctuation and dates to fill (an unfilled template)."""
    content = _CONTENT.search(text)
    if content is None:
        return True
    if "(" not in text[: content.start()]:
        return False  # written words before any bracket: not a drafting note, so not blank
    return not _CONTENT.search(_strip_brackets(text))


def blank_run(text: str) -> bool:
    """True when text contains a fill-in slot (＿＿＿, a wide gap, ××)."""
    return _BLANK_RUN.search(text) is not None


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
class Article:
    """One numbered article (第八条, 十、, 1.1 ...): where it starts, its title if its first line has one, where
    its body (what follows the marker and title) starts and where the article ends (sub-articles included)."""

    start: int
    title: tuple[int, int] | None
    body_start: int
    end: int


@dataclass
class Structure:
    """Offsets of paragraphs, sentences and drafting guidance in one folded text; headings are built on demand.

    Paragraphs are kept as parallel offset lists, and a heading (with the article it opens) is settled only
    for the paragraphs a hit lands in, so the cost follows the hits rather than every line of the document.
    """

    text: str
    paragraph_starts: list[int]
    paragraph_ends: list[int]
    levels: list[int | None]
    guidance_starts: list[int]
    guidance_ends: list[int]
    article_starts: list[int]
    article_ends: list[int]
    _titles: dict[int, tuple[int, int, bool] | None] = field(default_factory=dict)
    _headings: dict[int, Heading] = field(default_factory=dict)
    _sentence_ends: dict[int, list[int]] = field(default_factory=dict)

    def position(self, offset: int) -> int:
        """Return the index of the paragraph holding offset (the first one for offsets before it)."""
        return max(bisect.bisect_right(self.paragraph_starts, offset) - 1, 0)

    def article_at(self, offset: int) -> tuple[int, int]:
        """Return the outermost numbered article holding offset, or its paragraph when none (or too long)."""
        index = bisect.bisect_right(self.article_starts, offset) - 1
        if index >= 0:
            start, end = self.article_starts[index], self.article_ends[index]
            if offset < end and end - start <= _MAX_ARTICLE:
                return start, end
        return self.paragraph_at(offset)

    def paragraph_at(self, offset: int) -> tuple[int, int]:
        """Return (start, end) of the paragraph holding offset."""
        position = self.position(offset)
        return self.paragraph_starts[position], self.paragraph_ends[position]

    def sentence_at(self, offset: int) -> tuple[int, int]:
        """Return (start, end) of the sentence holding offset, never crossing its paragraph."""
        return self.sentence_in(self.position(offset), offset)

    def sentence_in(self, position: int, offset: int) -> tuple[int, int]:
        """Return the sentence holding offset inside paragraph position; its sentence ends are found once.

        A sentence end never spans whitespace and paragraphs are bounded by it, so scanning from a
        paragraph's start finds exactly the ends a scan of the whole text finds inside that paragraph.
        """
        first, last = self.paragraph_starts[position], self.paragraph_ends[position]
        if offset < first:  # leading whitespace before the first paragraph: an empty sentence at its start
            return first, first
        ends = self._sentence_ends.get(position)
        if ends is None:
            # Searching up to the paragraph's end finds the same ends: text after it is whitespace.
            ends = self._sentence_ends[position] = [m.end() for m in _SENTENCE_END.finditer(self.text, first, last)]
        index = bisect.bisect_right(ends, offset)
        end = ends[index] if index < len(ends) else last
        start = ends[index - 1] if index else first
        return max(start, first), min(end, last)

    def heading_at(self, start: int, end: int) -> Heading | None:
        """Return the heading whose title contains [start, end), if any (only its own paragraph's can)."""
        return self.heading_in(self.position(start), start, end)

    def heading_in(self, position: int, start: int, end: int) -> Heading | None:
        """Return the heading of paragraph position when its title contains [start, end).

        The title is found first (one anchored match); the article it opens and whether that is an unfilled
        slot are settled only for a title a hit actually lands in.
        """
        if position in self._titles:
            title = self._titles[position]
        else:
            title = self._titles[position] = _title(self, position)
        if title is None or not (title[0] <= start and end <= title[1]):
            return None
        heading = self._headings.get(position)
        if heading is None:
            heading = self._headings[position] = _heading(self, position, *title)
        return heading

    def articles(self) -> list[Article]:
        """Every paragraph that opens with an article marker, as an Article (nested ones too)."""
        out = []
        for position, level in enumerate(self.levels):
            if level is None:
                continue
            start, end = self.paragraph_starts[position], self.paragraph_ends[position]
            title = self._titles[position] if position in self._titles else _title(self, position)
            self._titles[position] = title
            mark = _MARK_AT.match(self.text, start, end)
            body_start = title[1] if title is not None else (mark.end() if mark else start)
            span = (title[0], title[1]) if title is not None and title[2] else None
            out.append(Article(start, span, body_start, self.article_end(position)))
        return out

    def in_guidance(self, offset: int) -> bool:
        """True when offset lies inside bracketed or trailing drafting guidance."""
        index = bisect.bisect_right(self.guidance_starts, offset) - 1
        return index >= 0 and offset < self.guidance_ends[index]

    def article_end(self, position: int) -> int:
        """Return where the article opened by a paragraph ends: before the next marker as high as its own."""
        level = self.levels[position]
        if level is None:
            return self.paragraph_ends[position]
        levels = self.levels
        stop = position + 1
        while stop < len(levels):
            following = levels[stop]
            if following is not None and following <= level:
                break
            stop += 1
        return self.paragraph_ends[stop - 1]


def _title(structure: Structure, position: int) -> tuple[int, int, bool] | None:
    """Find the heading title after a paragraph's article marker or form field label ("付款方式:").

    Returns (title start, title end, numbered) or None; only the paragraph's first line can hold a title.
    """
    text = structure.text
    start, end = structure.paragraph_starts[position], structure.paragraph_ends[position]
    line_end = text.find("\n", start, end)
    line_end = end if line_end == -1 else line_end
    # A paragraph without a marker level cannot open with one on its first line either.
    mark = _MARK_AT.match(text, start, line_end) if structure.levels[position] is not None else None
    found = _TITLE.match(text, mark.end(), line_end) if mark else _FIELD_AT.match(text, start, line_end)
    if found is None:
        return None
    group = 0 if mark else 1
    return found.start(group), found.end(group), mark is not None


def _heading(structure: Structure, position: int, title_start: int, title_end: int, numbered: bool) -> Heading:
    """Settle the article a title opens and whether its body is an unfilled slot."""
    article_end = structure.article_end(position)
    body_blank = is_blank(structure.text[title_end:article_end])
    level = structure.levels[position]
    return Heading(
        structure.paragraph_starts[position],
        title_start,
        title_end,
        article_end,
        body_blank,
        numbered,
        9 if level is None else level,
    )


def _paragraphs(text: str) -> tuple[list[int], list[int]]:
    """Group lines into paragraphs, re-joining lines that an old template wrapped at a fixed width."""
    starts: list[int] = []
    ends: list[int] = []
    for match in _LINE.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    # Only a line that ends mid-sentence can run on, so the wrap checks run on those lines alone.
    joins = [
        index
        for index in range(len(starts) - 1)
        if text[ends[index] - 1] not in _TERMINAL
        and _continues(text, starts[index], ends[index], starts[index + 1], ends[index + 1])
    ]
    if not starts:
        return [0], [len(text)]
    if not joins:
        return starts, ends
    joined = set(joins)
    return (
        [start for index, start in enumerate(starts) if index - 1 not in joined],
        [end for index, end in enumerate(ends) if index not in joined],
    )


def _continues(text: str, start: int, end: int, next_start: int, next_end: int) -> bool:
    """True when a hard-wrapped line runs on into the following one."""
    body = text[start:end]
    # Wrapped template lines are dense prose; a form line with gaps ("有效期限: 年 月 日至…") stands alone.
    if len(body) < 20 or body[-1] in _TERMINAL or "__" in body or "│" in body or _WIDE_GAP.search(body):
        return False
    return _MARK_AT.match(text, next_start, next_end) is None


def _levels(text: str, starts: list[int], ends: list[int]) -> list[int | None]:
    """Return the marker level of every paragraph; only paragraphs opening with a marker's first character
    are matched against the marker pattern."""
    levels: list[int | None] = [None] * len(starts)
    for position, start in enumerate(starts):
        char = text[start : start + 1]
        if char in _MARK_FIRST or char.isdecimal():
            match = _MARK_AT.match(text, start, ends[position])
            if match is not None and match.lastgroup is not None:
                levels[position] = int(match.lastgroup[1:])
    return levels


def _rank_chapters(levels: list[int | None], starts: list[int], guidance: list[tuple[int, int]]) -> list[int | None]:
    """Nest 第X条 inside 一、 chapters when a document opens with 一、 (labour contracts do); else the reverse."""
    guidance_starts = [start for start, _ in guidance]
    first: dict[int, int] = {}
    for position, level in enumerate(levels):
        if level not in (1, 2) or level in first:
            continue
        index = bisect.bisect_right(guidance_starts, starts[position]) - 1
        if not (index >= 0 and starts[position] < guidance[index][1]):
            first[level] = position
    if len(first) < 2 or first[1] < first[2]:
        return levels
    swap = {1: 2, 2: 1}
    return [None if level is None else swap.get(level, level) for level in levels]


def _articles(levels: list[int | None], ends: list[int], starts: list[int]) -> tuple[list[int], list[int]]:
    """Return starts and ends of every article at the document's outermost numbering level (chapters aside)."""
    numbered = [level for level in levels if level]
    if not numbered:
        return [], []
    top = min(numbered)
    article_starts: list[int] = []
    article_ends: list[int] = []
    stop = len(levels)  # the next paragraph with a marker at (or above) the top level
    for position in range(len(levels) - 1, -1, -1):
        level = levels[position]
        if level is None or level > top:
            continue
        if level == top:
            article_starts.append(starts[position])
            article_ends.append(ends[stop - 1])
        stop = position
    return article_starts[::-1], article_ends[::-1]


def _strip_brackets(text: str) -> str:
    """Return text without its parenthesised passages (drafting notes do not fill a slot)."""
    previous = None
    while previous != text:
        previous, text = text, _BRACKETED.sub("", text)
    return text


def document_structure(text: str) -> Structure:
    """Segment a folded text into paragraphs, sentences and guidance, all as offsets."""
    starts, ends = _paragraphs(text)
    raw_levels = _levels(text, starts, ends)
    guidance = merge_spans(bracket_guidance(text) + section_guidance(text, starts, ends, raw_levels))
    levels = _rank_chapters(raw_levels, starts, guidance)
    article_starts, article_ends = _articles(levels, ends, starts)
    return Structure(
        text=text,
        paragraph_starts=starts,
        paragraph_ends=ends,
        levels=levels,
        guidance_starts=[start for start, _ in guidance],
        guidance_ends=[end for _, end in guidance],
        article_starts=article_starts,
        article_ends=article_ends,
    )
