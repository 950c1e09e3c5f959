"""Dates as ISO values (二〇二六年三月一日, 2026年3月1日, 2026-03-01) and date slots a template leaves blank."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.contract_terms.blanks import BLANK_PATTERN
from rules.entities.expressions import find_dates as _entity_dates

# ＿年＿月＿日, 年　月　日 and the like: a date that is still to be written.
_BLANK_DATE_RE = re.compile(rf"(?:{BLANK_PATTERN}|\s*)年(?:{BLANK_PATTERN}|\s+)月(?:{BLANK_PATTERN}|\s+)[日号]")


@dataclass(frozen=True)
class DateMatch:
    """A date in text: its span and ISO value (2026, 2026-03 or 2026-03-01); None for a blank date."""

    start: int
    end: int
    value: str | None


def parse_date(text: str) -> str | None:
    """Return the ISO value of one date written whole (二〇二六年三月一日 → 2026-03-01), or None."""
    stripped = text.strip()
    found = _entity_dates(stripped)
    if len(found) != 1 or found[0].end - found[0].start != len(stripped):
        return None
    return found[0].value


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMatch]:
    """Return the full dates (with a year) and the blank dates in text[start:end], in text order."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    found = [DateMatch(start + d.start, start + d.end, d.value) for d in _entity_dates(window) if d.value]
    blanks = [DateMatch(start + m.start(), start + m.end(), None) for m in _BLANK_DATE_RE.finditer(window)]
    # 2026年＿月＿日: the year printed on a form does not make its blank date a date.
    found = [d for d in found if not any(b.start < d.end and d.start < b.end for b in blanks)]
    return sorted(found + blanks, key=lambda d: d.start)
