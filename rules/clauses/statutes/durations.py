"""Just enough value parsing for the statutory checks: periods in months, calendar dates and a term between dates.

(The full key-terms extractor, `rules.contract_terms`, reads these too; these helpers are to be unified with it.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from itertools import pairwise

from rules.amounts import parse_number

_NUM = r"\d+(?:\.\d+)?|[零〇一二两三四五六七八九十百]+"
# A period: 三年, 六个月, 半年, 一年半, 30天, 十五日, 2周. 月 needs 个 (三月 is March), 日 must not end a date; no
# wide gap between number and unit (一九　　年 is a blank year of a form).
_PERIOD = re.compile(
    rf"(?P<half>半)?(?:(?P<number>{_NUM}) ?(?P<unit>年|个月|个?星期|周|天|日))(?P<and_half>半)?|半年|半个月"
)
_DAYS_PER_MONTH = Decimal(30)
# Months per unit as (times, divided by), so 30天 is exactly one month.
_UNIT_MONTHS = {"年": (12, 1), "月": (1, 1), "周": (7, 30), "星期": (7, 30), "天": (1, 30), "日": (1, 30)}
_DATE = re.compile(
    r"(?P<year>\d{4}|[〇零○一二三四五六七八九]{4})\s*(?:年|[-./])\s*(?P<month>\d{1,2}|[一二三四五六七八九十]{1,2})"
    r"\s*(?:月|[-./])\s*(?P<day>\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号]?"
)
_OPEN_ENDED = re.compile(r"无固定期限")


@dataclass(frozen=True)
class Period:
    """A stated period: where it is, its words and its length in months (days count 30 to the month)."""

    start: int
    end: int
    raw: str
    months: Decimal


@dataclass(frozen=True)
class DateMatch:
    """A calendar date written in the text (2026年3月1日, 二〇二六年三月一日, 2026-03-01)."""

    start: int
    end: int
    value: date


def _period_months(match: re.Match[str]) -> Decimal | None:
    """The months a period match names, or None when its number does not parse."""
    if match["number"] is None:
        return Decimal(6) if match.group() == "半年" else Decimal("0.5")
    value = parse_number(match["number"])
    if value is None:
        return None
    times, divisor = _UNIT_MONTHS[match["unit"].lstrip("个")]
    months = value * times / divisor
    if match["and_half"]:
        months += Decimal(times) / divisor / 2
    return months


def find_periods(text: str) -> list[Period]:
    """Every period in text; a four-digit year (2026年) and the day of a date (3月1日) are not periods."""
    found: list[Period] = []
    for match in _PERIOD.finditer(text):
        unit, number = match["unit"], match["number"] or ""
        if unit == "年" and len(number) == 4:
            continue  # 2026年 is a year
        if unit in ("日", "天") and match.start() > 0 and text[match.start() - 1] in "月-./":
            continue  # 3月1日 is a date
        if unit == "年" and re.match(r"\s*\d{1,2}\s*月", text[match.end() :]):
            continue  # the 年 of 26年3月 starts a date
        months = _period_months(match)
        if months is not None and months > 0:
            found.append(Period(match.start(), match.end(), match.group(), months))
    return found


def _date_part(text: str) -> int | None:
    """The integer a date part names (Arabic, 二〇二六 digit by digit, or 十二)."""
    value = parse_number(text)
    return None if value is None else int(value)


def find_dates(text: str) -> list[DateMatch]:
    """Every valid calendar date in text."""
    found: list[DateMatch] = []
    for match in _DATE.finditer(text):
        parts = [_date_part(match[name]) for name in ("year", "month", "day")]
        if None in parts:
            continue
        year, month, day = (int(p or 0) for p in parts)
        try:
            found.append(DateMatch(match.start(), match.end(), date(year, month, day)))
        except ValueError:
            continue
    return found


def months_between(first: date, second: date) -> Decimal:
    """Whole and part months from first to second, counting the end day (2026-01-01 to 2026-12-31 is 12)."""
    after = second + timedelta(days=1)  # the term runs through its last day
    months = (after.year - first.year) * 12 + (after.month - first.month)
    return Decimal(months) + Decimal(after.day - first.day) / _DAYS_PER_MONTH


def term_months(sentence: str) -> tuple[Decimal, tuple[int, int]] | None:
    """A term's length in months with its span in the sentence: a date range first, else the longest period."""
    dates = find_dates(sentence)
    for first, second in pairwise(dates):
        between = sentence[first.end : second.start]
        if re.search(r"至|到|止|—|-|~", between) and len(between) <= 14 and second.value > first.value:
            return months_between(first.value, second.value), (first.start, second.end)
    periods = find_periods(sentence)
    if not periods:
        return None
    longest = max(periods, key=lambda p: p.months)
    return longest.months, (longest.start, longest.end)


def is_open_ended(sentence: str) -> bool:
    """Whether a term sentence makes the contract open-ended (无固定期限)."""
    return bool(_OPEN_ENDED.search(sentence))
