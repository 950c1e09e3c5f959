"""A ticket's time limit: tiers chosen from category and urgency, and due times counted on the working-day clock
(weekends, public holidays and 调休 make-up working days from the calendar pack)."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from rules.tickets.service_levels import (
    Tier,
    deadline_compute,
    load_service_levels,
    ticket_deadline,
    working_time_add,
)
from rules.tickets.work_calendar import load_calendar

SHANGHAI = ZoneInfo("Asia/Shanghai")
GENERAL = Tier("general", 7, "working_days")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


@pytest.mark.parametrize(
    ("urgency", "level2", "level3", "tier"),
    [
        ("urgent", "城市建设和市政管理", "燃气供应", "emergency"),  # urgency first: a gas leak is an emergency
        ("normal", "城市建设和市政管理", "自来水供应", "utilities"),
        ("high", "城市建设和市政管理", "冬季采暖", "utilities"),
        ("normal", "国有土地上房屋征收与补偿", "安置补偿", "complex"),
        ("normal", "城乡规划", "违章建筑", "complex"),
        ("normal", "城市建设和市政管理", "基础设施", "general"),
        (None, None, None, "general"),
    ],
    ids=["urgent-gas", "water", "heating", "expropriation", "illegal-building", "streetlight", "nothing-known"],
)
def test_the_tier_follows_urgency_then_category(
    urgency: str | None, level2: str | None, level3: str | None, tier: str
) -> None:
    chosen, _ = load_service_levels().tier_for(urgency=urgency, level2=level2, level3=level3)
    assert chosen.name == tier


def test_the_pack_has_the_four_tiers_of_the_standard() -> None:
    tiers = load_service_levels().tiers
    assert {name: (t.limit, t.unit) for name, t in tiers.items()} == {
        "emergency": (2, "hours"),
        "utilities": (24, "hours"),
        "general": (7, "working_days"),
        "complex": (15, "working_days"),
    }


def test_hour_tiers_run_day_and_night_over_weekends_and_holidays() -> None:
    due, soon = deadline_compute(
        at("2026-10-01T23:00"),
        Tier("emergency", 2, "hours"),
        calendar=load_calendar(),
        zone=SHANGHAI,
        due_soon_share=0.2,
    )
    assert due == at("2026-10-02T01:00") and soon == at("2026-10-02T00:36")


def test_working_days_skip_the_weekend() -> None:
    # Friday 10:00 + 7 working days: Mon..Fri, Mon, and Tuesday up to 10:00.
    due, soon = deadline_compute(
        at("2026-12-04T10:00"), GENERAL, calendar=load_calendar(), zone=SHANGHAI, due_soon_share=0.2
    )
    assert due == at("2026-12-15T10:00")
    assert soon == working_time_add(at("2026-12-04T10:00"), timedelta(days=7 * 0.8), load_calendar(), SHANGHAI)
    assert soon == at("2026-12-14T00:24")  # 5.6 working days in: a share of the allowed time, not of the calendar


def test_a_ticket_received_on_a_weekend_starts_counting_on_monday() -> None:
    due, _ = deadline_compute(
        at("2026-12-05T15:00"),
        Tier("general", 1, "working_days"),
        calendar=load_calendar(),
        zone=SHANGHAI,
        due_soon_share=0.2,
    )
    assert due == at("2026-12-08T00:00")  # the whole of Monday 7 December


def test_a_public_holiday_does_not_count_and_a_make_up_working_day_does() -> None:
    # Thursday 24 September 2026: 25-27 September (中秋) and 1-7 October (国庆) are holidays; Saturday 10 October
    # is a make-up working day (调休上班). Thu, Mon 28, Tue 29, Wed 30, Thu 8, Fri 9, Sat 10, then Monday 12.
    due, _ = deadline_compute(
        at("2026-09-24T10:00"), GENERAL, calendar=load_calendar(), zone=SHANGHAI, due_soon_share=0.2
    )
    assert due == at("2026-10-12T10:00")
    calendar = load_calendar()
    assert not calendar.is_workday(date(2026, 10, 1)) and not calendar.is_workday(date(2026, 9, 25))
    assert calendar.is_workday(date(2026, 10, 10)) and date(2026, 10, 10).weekday() == 5
    assert not calendar.is_workday(date(2026, 10, 11))
    assert {2025, 2026} <= calendar.years
    assert calendar.year_status(2025) == calendar.year_status(2026) == "official"


def test_spring_festival_with_its_two_saturday_make_up_days() -> None:
    # Thursday 12 February 2026, 3 working days: Fri 13, Sat 14 (调休), then 15-23 February off, so Tuesday 24.
    due, _ = deadline_compute(
        at("2026-02-12T09:00"),
        Tier("general", 3, "working_days"),
        calendar=load_calendar(),
        zone=SHANGHAI,
        due_soon_share=0.2,
    )
    assert due == at("2026-02-24T09:00")


def test_an_organisation_override_replaces_the_limit_of_its_tier_only() -> None:
    received = at("2026-12-04T10:00")
    faster = {"general": Tier("general", 3, "working_days")}
    kwargs = {"urgency": "normal", "level2": None, "level3": None, "zone": SHANGHAI, "due_soon_share": 0.2}
    assert ticket_deadline(received, overrides=faster, **kwargs).due_at == at("2026-12-09T10:00")  # type: ignore[arg-type]
    water = ticket_deadline(received, overrides=faster, **{**kwargs, "level3": "自来水供应"})  # type: ignore[arg-type]
    assert water.tier.name == "utilities" and water.due_at == received + timedelta(hours=24)


def test_received_times_in_another_timezone_count_local_working_days() -> None:
    # 2026-12-04T18:00Z is Saturday 02:00 in Shanghai: the clock starts on Monday.
    received = datetime.fromisoformat("2026-12-04T18:00:00+00:00")
    due, _ = deadline_compute(
        received, Tier("general", 1, "working_days"), calendar=load_calendar(), zone=SHANGHAI, due_soon_share=0.2
    )
    assert due == at("2026-12-08T00:00")


def test_a_calendar_with_a_day_both_holiday_and_working_day_is_refused(tmp_path: Path) -> None:
    bad = {
        "version": "x",
        "years": {
            "2026": {
                "status": "official",
                "holidays": [{"name": "a", "from": "2026-10-10", "to": "2026-10-10"}],
                "workdays": [{"name": "b", "date": "2026-10-10"}],
            }
        },
    }
    path = tmp_path / "calendar.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="both holiday and working day"):
        load_calendar(path)


def test_a_pack_naming_an_undefined_tier_is_refused(tmp_path: Path) -> None:
    pack: dict[str, Any] = {
        "version": "x",
        "tiers": {"general": {"limit": 7, "unit": "working_days"}},
        "default_tier": "general",
    }
    pack["rules"] = [{"id": "R", "tier": "nowhere", "urgency": ["urgent"]}]
    path = tmp_path / "levels.json"
    path.write_text(json.dumps(pack))
    with pytest.raises(ValueError, match="nowhere"):
        load_service_levels(path)
