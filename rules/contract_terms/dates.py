"""Dates as ISO values (二〇二六年三月一日, 2026年3月1日, 2026-03-01) and date slots a template leaves blank."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from rules.amounts import parse_number
from rules.contract_terms.blanks import BLANK_PATTERN
from rules.contract_terms.model import Found

# Every way a contract writes a date; the entity finder reads the same dates (rules.entities imports this module,
# never the reverse, so the key terms import nothing of rules.entities).
_CN_YEAR_DIGITS = "〇○零一二三四五六七八九"
_CN_SMALL = "一二三四五六七八九十"
_YEAR = "(?<![0-9])(?:19|20)[0-9]{2}"
_MD_NUM = rf"(?:[0-9]{{1,2}}|[{_CN_SMALL}]{{1,3}})"
_DATE_RE = re.compile(
    rf"""
      (?P<ymd>(?P<y>{_YEAR})\s?年(?:\s?(?P<m>[0-9]{{1,2}})\s?月(?:\s?(?P<d>[0-9]{{1,2}})\s?[日号])?)?)
    | (?P<iso>(?P<iy>{_YEAR})(?P<sep>[-/.])(?P<im>[0-9]{{1,2}})(?P=sep)(?P<id>[0-9]{{1,2}})(?![0-9]))
    | (?P<cn>(?P<cy>[{_CN_YEAR_DIGITS}]{{4}})年(?:(?P<cm>{_MD_NUM})月(?:(?P<cd>{_MD_NUM})[日号])?)?)
    | (?P<md>(?<![0-9])(?P<mm>{_MD_NUM})月(?P<md_d>{_MD_NUM})[日号])
    | (?P<every>每(?:个)?(?:月|年|周|星期)(?:[0-9]{{1,2}}月)?(?:[0-9]{{1,2}}|[{_CN_SMALL}日天]{{1,3}})[日号]?)
    """,
    re.VERBOSE,
)

# ＿年＿月＿日, 年　月　日 and the like: a date that is still to be written.
_BLANK_DATE_RE = re.compile(rf"(?:{BLANK_PATTERN}|\s*)年(?:{BLANK_PATTERN}|\s+)月(?:{BLANK_PATTERN}|\s+)[日号]")


@dataclass(frozen=True)
class WrittenDate:
    """A date as written: its span and words, its form (ymd, iso, cn, md, every) and ISO value where known."""

    start: int
    end: int
    raw: str
    form: str
    value: str | None


def _small_number(text: str | None) -> int | None:
    """Return a month, day or year number written in Arabic or Chinese digits, or None."""
    if not text:
        return None
    value = parse_number(text)
    return None if value is None else int(value)


def _iso_date(year: int | None, month: int | None, day: int | None) -> str | None:
    """Return an ISO date, year-month or year, None when unknown; raise ValueError if impossible."""
    if year is None:
        return None
    if month is None:
        return f"{year:04d}"
    if day is None:
        if not 1 <= month <= 12:
            raise ValueError(f"month {month}")
        return f"{year:04d}-{month:02d}"
    return dt.date(year, month, day).isoformat()


def _date_value(match: re.Match[str]) -> str | None:
    """Return the ISO value of a date match, or None; raise ValueError for impossible dates."""
    kind = match.lastgroup
    if kind == "ymd":
        return _iso_date(int(match["y"]), _small_number(match["m"]), _small_number(match["d"]))
    if kind == "iso":
        return _iso_date(int(match["iy"]), int(match["im"]), int(match["id"]))
    if kind == "cn":
        return _iso_date(_small_number(match["cy"]), _small_number(match["cm"]), _small_number(match["cd"]))
    if kind == "md":
        month, day = _small_number(match["mm"]), _small_number(match["md_d"])
        if not (month and day and 1 <= month <= 12 and 1 <= day <= 31):
            raise ValueError(f"month {month} day {day}")
    return None


def written_dates(text: str) -> list[WrittenDate]:
    """Every date written in text (2023年5月1日, 二〇二三年五月一日, 2023-05-01, 5月1日, 每月15日), impossible ones
    (2023-13-45, 十三月一日) left out."""
    found: list[WrittenDate] = []
    for match in _DATE_RE.finditer(text):
        try:
            value = _date_value(match)
        except ValueError:
            continue
        found.append(WrittenDate(match.start(), match.end(), match.group(), match.lastgroup or "", value))
    return found


def parse_date(text: str) -> str | None:
    """Return the ISO value of one date written whole (二〇二六年三月一日 → 2026-03-01), or None."""
    stripped = text.strip()
    found = written_dates(stripped)
    if len(found) != 1 or found[0].end - found[0].start != len(stripped):
        return None
    return found[0].value


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[Found[str | None]]:
    """Return the full dates (with a year) and the blank dates in text[start:end], in text order."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    found: list[Found[str | None]] = [
        Found(start + d.start, start + d.end, d.value) for d in written_dates(window) if d.value
    ]
    blanks: list[Found[str | None]] = [
        Found(start + m.start(), start + m.end(), None) for m in _BLANK_DATE_RE.finditer(window)
    ]
    # 2026年＿月＿日: the year printed on a form does not make its blank date a date.
    found = [d for d in found if not any(b.start < d.end and d.start < b.end for b in blanks)]
    return sorted(found + blanks, key=lambda d: d.start)
