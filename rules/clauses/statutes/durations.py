"""Periods in months and calendar dates for the statutory checks, read by `rules.contract_terms`' parsers.

What stays here is what only the statutes need: a period's length in months (the statutes count probation,
non-compete and lease terms in months) and a term's length between two dates, counting its last day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from itertools import pairwise

from rules.contract_terms.dates import find_dates as find_written_dates
from rules.contract_terms.durations import find_durations
from rules.contract_terms.model import Found

_DAYS_PER_MONTH = Decimal(30)
# Months per unit of a `Duration` as (times, divided by), so 30天 is exactly one month (a working day is 7/5 days).
_UNIT_MONTHS: dict[str, tuple[Decimal, int]] = {
    "year": (Decimal(12), 1),
    "month": (Decimal(1), 1),
    "week": (Decimal(7), 30),
    "day": (Decimal(1), 30),
    "workday": (Decimal("1.4"), 30),
}
_OPEN_ENDED = re.compile(r"无固定期限")


@dataclass(frozen=True)
class Period:
    """A stated period: where it is, its words and its length in months (days count 30 to the month)."""

    start: int
    end: int
    raw: str
    months: Decimal


def find_periods(text: str) -> list[Period]:
    """Every period in text with its length in months (hours are too short for any statutory limit)."""
    periods: list[Period] = []
    for found in find_durations(text):
        if found.value.unit in _UNIT_MONTHS:
            times, divisor = _UNIT_MONTHS[found.value.unit]
            months = found.value.amount * times / divisor
            periods.append(Period(found.start, found.end, text[found.start : found.end], months))
    return periods


def find_dates(text: str) -> list[Found[date]]:
    """Every full calendar date in text (a year or a month alone is no day)."""
    return [
        Found(d.start, d.end, date.fromisoformat(d.value))
        for d in find_written_dates(text)
        if d.value is not None and len(d.value) == len("2026-03-01")
    ]


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
