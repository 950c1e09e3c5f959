"""The holiday calendar's years: what the law fixes for a year whose State Council notice is not out yet
(statutory days only, marked so), and what a year's entry must not say."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from rules.tickets.service_levels import Tier, deadline_compute
from rules.tickets.work_calendar import calendar_of, calendar_year_parse, calendar_years_parse, load_calendar

SHANGHAI = ZoneInfo("Asia/Shanghai")


def days(first: str, last: str) -> set[date]:
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return {start + timedelta(days=n) for n in range((end - start).days + 1)}


def test_2027_holds_the_thirteen_statutory_days_and_says_it_is_statutory_only() -> None:
    calendar = load_calendar()
    assert calendar.year_status(2027) == "statutory_only"
    listed = {day for day in calendar.holidays if day.year == 2027}
    # 全国年节及纪念日放假办法 (2024): 元旦 1, 春节 4 (除夕 to 初三: the lunar new year falls on 6 February 2027),
    # 清明 1, 劳动节 2, 端午 1 (五月初五), 中秋 1 (八月十五), 国庆 3.
    expected = (
        {date(2027, 1, 1), date(2027, 4, 5), date(2027, 6, 9), date(2027, 9, 15)}
        | days("2027-02-05", "2027-02-08")
        | days("2027-05-01", "2027-05-02")
        | days("2027-10-01", "2027-10-03")
    )
    assert listed == expected and len(listed) == 13
    assert not {day for day in calendar.workdays if day.year == 2027}  # no 调休 is invented
    assert calendar.year_status(2028) is None


def test_a_2027_deadline_skips_the_statutory_spring_festival() -> None:
    # Thursday 4 February 2027 10:00, 2 working days: the rest of Thursday, then Fri 5 to Mon 8 (除夕 to 初三) stand
    # still, all of Tuesday 9, and Wednesday 10 to 10:00.
    received = datetime(2027, 2, 4, 10, 0, tzinfo=SHANGHAI)
    due, _ = deadline_compute(
        received, Tier("general", 2, "working_days"), calendar=load_calendar(), zone=SHANGHAI, due_soon_share=0.2
    )
    assert due == datetime(2027, 2, 10, 10, 0, tzinfo=SHANGHAI)


def entry(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "status": "official",
        "holidays": [{"name": "国庆节", "from": "2027-10-01", "to": "2027-10-07"}],
        "workdays": [{"name": "国庆节调休", "date": "2027-09-26"}],
    }
    return {**base, **changes}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "rumoured"}, "status must be one of"),
        ({"workdays": [{"name": "x", "date": "2027-09-28"}]}, "must fall on a weekend"),
        ({"holidays": [{"name": "x", "from": "2028-10-01", "to": "2028-10-03"}]}, "outside the year"),
        ({"holidays": [{"name": "x", "from": "2027-10-03", "to": "2027-10-01"}]}, "ends before it starts"),
        ({"holidays": [{"name": "x", "from": "2027-10-01"}]}, "malformed"),
        ({"workdays": [{"name": "x", "date": "2027-10-02"}]}, "both holiday and working day"),
    ],
    ids=["unknown-status", "weekday-make-up-day", "another-year", "backwards-range", "no-end", "day-twice"],
)
def test_a_malformed_year_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        calendar_year_parse(2027, entry(**changes))


def test_a_year_loaded_later_replaces_the_packs_year() -> None:
    pack = load_calendar()
    official = calendar_year_parse(2027, entry())
    merged = calendar_of("test", [*pack.entries.values(), official])
    assert merged.year_status(2027) == "official" and merged.year_status(2026) == "official"
    assert merged.is_workday(date(2027, 9, 26)) and not merged.is_workday(date(2027, 10, 6))
    assert merged.is_workday(date(2027, 2, 5))  # the pack's statutory 春节 went with its year
    assert not merged.is_workday(date(2026, 10, 1))


def test_a_calendar_file_names_its_years() -> None:
    with pytest.raises(ValueError, match="names its years"):
        calendar_years_parse({"holidays": []})
    assert [y.year for y in calendar_years_parse({"years": {"2027": entry()}})] == [2027]


def test_every_official_year_matches_an_independent_transcription_of_the_notices() -> None:
    """The pack's official years were typed from the State Council's notices; `chinese_calendar` (a maintained
    library that transcribes the same notices) must agree with every holiday and 调休 working day of each year both
    cover, so a mistyped date cannot pass as official."""
    import chinese_calendar

    calendar = load_calendar()
    covered = {day.year for day in chinese_calendar.holidays} & {day.year for day in chinese_calendar.workdays}
    official = {day.year for day in calendar.holidays if calendar.year_status(day.year) == "official"}
    compared = sorted(official & covered)
    assert compared, "no official year of the pack is covered by the reference"
    for year in compared:
        ours = {day for day in calendar.holidays if day.year == year}
        theirs = {day for day in chinese_calendar.holidays if day.year == year}
        assert ours == theirs, (year, sorted(ours ^ theirs))
        ours_work = {day for day in calendar.workdays if day.year == year}
        theirs_work = {day for day in chinese_calendar.workdays if day.year == year}
        assert ours_work == theirs_work, (year, sorted(ours_work ^ theirs_work))
