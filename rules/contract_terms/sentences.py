"""Sentences of a contract (split at 。；; and line breaks) and the blank-aware term builder every detector uses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rules.contract_terms.blanks import BLANK_PATTERN, blank_values, find_blanks
from rules.contract_terms.model import AGREED, BLANK, KeyTerm, TermValue

_SENTENCE_END_RE = re.compile(r"[。；;\n]")
_LABELLED_SLOT_RE = re.compile(rf"[^，。；：:]{{0,10}}[：:][ \t　]*(?P<slot>{BLANK_PATTERN})[ \t　]*$")
_FULL_WIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
# A full-width comma or point between digits (１，０００．５０) is a digit separator, not punctuation.
_FULL_WIDTH_DIGIT_RE = re.compile("[０-９]")
_DIGIT_SEPARATOR_RE = re.compile(r"(?<=[0-9])[，．](?=[0-9])")


def half_width_digits(text: str) -> str:
    """text with full-width digits (and the separators between them) in ASCII; offsets do not move."""
    if _FULL_WIDTH_DIGIT_RE.search(text) is None:
        return text
    text = text.translate(_FULL_WIDTH_DIGITS)
    return _DIGIT_SEPARATOR_RE.sub(lambda m: "," if m.group() == "，" else ".", text)


@dataclass(frozen=True)
class Sentence:
    """A sentence: its span in the contract and its text."""

    start: int
    end: int
    text: str

    def term(self, kind: str, value: TermValue, span: tuple[int, int], confidence: float, rule_id: str) -> KeyTerm:
        """An agreed term found in this sentence at span (offsets of the contract)."""
        start, end = span
        return KeyTerm(kind, value, start, end, self.text, confidence, rule_id, AGREED)

    def blank_term(self, kind: str, rule_id: str, *, with_unit: bool = True, units: str = "") -> KeyTerm | None:
        """A blank term where the sentence leaves its value empty (月租金为　　元, 前＿天), else None; `units`
        (characters) keeps only blanks followed by one of them."""
        spans = blank_values(self.text) if with_unit else find_blanks(self.text)
        if units:
            spans = [(s, e) for s, e in spans if self.text[e - 1] in units]
        if not spans:
            return None
        start, end = spans[0]
        return KeyTerm(kind, None, self.start + start, self.start + end, self.text, 0.85, rule_id, BLANK)

    def slot_blank_term(self, kind: str, rule_id: str, after: int) -> KeyTerm | None:
        """A blank term where a labelled slot after `after` is empty (合同总金额：＿＿＿, 定金数额、时间：＿＿)."""
        match = _LABELLED_SLOT_RE.match(self.text, after)
        if match is None:
            return None
        start, end = match.span("slot")
        return KeyTerm(kind, None, self.start + start, self.start + end, self.text, 0.8, rule_id, BLANK)


def sentences(text: str) -> Iterator[Sentence]:
    """The non-empty sentences of text with their spans."""
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        if match.start() > start and text[start : match.start()].strip():
            yield Sentence(start, match.start(), text[start : match.start()])
        start = match.end()
    if text[start:].strip():
        yield Sentence(start, len(text), text[start:])
