"""The working-day calendar of the deadlines: per year the public holidays and the make-up working days (调休上班),
and how certain the year is (`cn_workdays.json`: data, not code).

A year is `official` when it copies the State Council's notice (国务院办公厅关于<year>年部分节假日安排的通知), and
`statutory_only` when it lists only the days fixed by law (全国年节及纪念日放假办法) because the notice is not
published yet: then the make-up days off for holidays that fall on a weekend (补假) and the make-up working days
are missing, so a working-day deadline in that year may be off by a few days. A year not listed counts weekends
only. An organisation may load the official schedule (contracts.hotline.deadlines.calendar); its years replace
the pack's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.tickets.taxonomy import PACKS_DIR

CALENDAR_PATH = PACKS_DIR / "cn_workdays.json"
OFFICIAL, STATUTORY_ONLY = "official", "statutory_only"
YEAR_STATUSES = (OFFICIAL, STATUTORY_ONLY)
# A year's holidays may start in the last days of the year before (元旦 2023 began on 31 December 2022).
YEAR_MARGIN = timedelta(days=15)


@dataclass(frozen=True)
class CalendarYear:
    """One year of the calendar: its holidays, its make-up working days, and how certain it is."""

    year: int
    status: str
    holidays: frozenset[date]
    workdays: frozenset[date]
    source: str = ""


@dataclass(frozen=True)
class WorkCalendar:
    """Working days: Monday to Friday, less the holidays, plus the make-up working days (调休)."""

    version: str
    holidays: frozenset[date]
    workdays: frozenset[date]
    years: frozenset[int] = frozenset()  # the years whose holidays are listed; others count weekends only
    entries: Mapping[int, CalendarYear] = field(default_factory=dict)

    def is_workday(self, day: date) -> bool:
        if day in self.workdays:
            return True
        return day.weekday() < 5 and day not in self.holidays

    def year_status(self, year: int) -> str | None:
        """`official`, `statutory_only`, or None for a year the calendar does not list (weekends only)."""
        entry = self.entries.get(year)
        return entry.status if entry is not None else None


def _dates(start: str, end: str) -> Iterable[date]:
    first, last = date.fromisoformat(start), date.fromisoformat(end)
    if last < first:
        raise ValueError(f"holiday range {start}..{end} ends before it starts")
    return (first + timedelta(days=n) for n in range((last - first).days + 1))


def calendar_year_parse(year: int, entry: Mapping[str, Any]) -> CalendarYear:
    """One year from its entry `{"status", "source", "holidays": [{"name", "from", "to"}], "workdays": [{"name",
    "date"}]}`; raise ValueError for an unknown status, a malformed or misplaced date, a make-up working day that is
    not a Saturday or Sunday, or a day listed both ways."""
    try:
        status = str(entry["status"])
        holidays = frozenset(day for item in entry["holidays"] for day in _dates(item["from"], item["to"]))
        workdays = frozenset(date.fromisoformat(item["date"]) for item in entry["workdays"])
        source = str(entry.get("source") or "")
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"year {year}: malformed entry ({exc!r})") from exc
    if status not in YEAR_STATUSES:
        raise ValueError(f"year {year}: status must be one of {YEAR_STATUSES}, not {status!r}")
    first, last = date(year, 1, 1) - YEAR_MARGIN, date(year, 12, 31) + YEAR_MARGIN
    outside = sorted(day.isoformat() for day in holidays | workdays if not first <= day <= last)
    if outside:
        raise ValueError(f"year {year}: days outside the year: {outside}")
    weekdays = sorted(day.isoformat() for day in workdays if day.weekday() < 5)
    if weekdays:
        raise ValueError(f"year {year}: make-up working days must fall on a weekend, not {weekdays}")
    if holidays & workdays:
        raise ValueError(f"year {year}: days both holiday and working day: {sorted(holidays & workdays)}")
    return CalendarYear(year=year, status=status, holidays=holidays, workdays=workdays, source=source)


def calendar_of(version: str, years: Iterable[CalendarYear]) -> WorkCalendar:
    """The calendar of these years (a later entry for the same year replaces an earlier one)."""
    by_year = {entry.year: entry for entry in years}
    holidays = frozenset(day for entry in by_year.values() for day in entry.holidays)
    workdays = frozenset(day for entry in by_year.values() for day in entry.workdays)
    if holidays & workdays:
        raise ValueError(f"days both holiday and working day: {sorted(holidays & workdays)}")
    return WorkCalendar(
        version=version,
        holidays=holidays,
        workdays=workdays,
        years=frozenset(by_year),
        entries=by_year,
    )


def calendar_years_parse(data: Mapping[str, Any]) -> list[CalendarYear]:
    """The years of a calendar file (the pack's format: `{"years": {"2027": {...}}}`); ValueError if malformed."""
    years = data.get("years") if isinstance(data, Mapping) else None
    if not isinstance(years, Mapping) or not years:
        raise ValueError('a calendar names its years: {"years": {"2027": {"status": ..., "holidays": [...]}}}')
    parsed = []
    for key, entry in years.items():
        if not str(key).isdigit() or not isinstance(entry, Mapping):
            raise ValueError(f"year {key!r}: not a year with its entry")
        parsed.append(calendar_year_parse(int(key), entry))
    return parsed


@lru_cache(maxsize=2)
def load_calendar(path: Path = CALENDAR_PATH) -> WorkCalendar:
    """Read the holiday calendar pack; raise ValueError when it is malformed."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    try:
        return calendar_of(str(data["version"]), calendar_years_parse(data))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed calendar {path}: {exc}") from exc
