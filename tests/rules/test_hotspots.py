"""Hotspots without Django: places, windows, the heat index, and a planted burst found among a half year's tickets."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from rules.tickets.hotspot_rows import ticket_row
from rules.tickets.hotspots import (
    HotspotTicket,
    heat_index,
    hotspots_rank,
    window_shift,
    window_start,
)
from rules.tickets.places import ticket_place
from tests.hotspot_corpus import BURST_IDS, BURST_PLACE, ZONE, burst_week, corpus

SHANGHAI = dt.timezone(dt.timedelta(hours=8))


@pytest.fixture(scope="module")
def half_year() -> list[HotspotTicket]:
    return [ticket_row(row) for row in corpus()]


def test_the_planted_burst_ranks_first_among_a_half_year_of_public_tickets(half_year: list[HotspotTicket]) -> None:
    report = hotspots_rank(half_year, top=10, zone=SHANGHAI)
    first = report.hotspots[0]
    assert set(BURST_IDS) <= set(first.ticket_ids)
    assert len(first.ticket_ids) <= len(BURST_IDS) + 2  # the burst, not a whole category
    assert first.place_key == BURST_PLACE and first.place.startswith(BURST_PLACE)
    assert first.window_start == burst_week().astimezone(SHANGHAI)
    assert first.previous_count == 0 and first.growth > 3
    assert {"施工", "噪音"} & set(first.keywords)
    assert first.heat > 2 * report.hotspots[1].heat
    assert report.tickets == len(half_year) and len(report.windows) >= 26


def test_the_same_tickets_in_any_order_give_the_same_hotspots(half_year: list[HotspotTicket]) -> None:
    sample = half_year[:300] + half_year[-12:]
    shuffled = list(sample)
    random.Random(7).shuffle(shuffled)
    assert hotspots_rank(sample, zone=SHANGHAI) == hotspots_rank(shuffled, zone=SHANGHAI)


def _tickets(texts: list[str], start: dt.datetime, **extra: object) -> list[HotspotTicket]:
    return [
        HotspotTicket(id=f"t{i}", text=text, time=start + dt.timedelta(hours=i), **extra)  # type: ignore[arg-type]
        for i, text in enumerate(texts)
    ]


NOISE = [
    "B2区幸福路菜市场凌晨三点就开始卸货，噪音扰民，希望管一管。",
    "B2区幸福路菜市场每天凌晨卸货噪音很大，附近居民无法休息。",
    "投诉B2区幸福路菜市场凌晨卸货噪音扰民。",
]


def test_citizens_supports_and_urgency_raise_the_heat_and_objections_lower_it() -> None:
    monday = dt.datetime(2026, 11, 2, 9, tzinfo=SHANGHAI)
    plain = hotspots_rank(_tickets(NOISE, monday), zone=SHANGHAI).hotspots[0]
    liked = hotspots_rank(_tickets(NOISE, monday, likes=40), zone=SHANGHAI).hotspots[0]
    contested = hotspots_rank(_tickets(NOISE, monday, likes=40, against=30), zone=SHANGHAI).hotspots[0]
    urgent = hotspots_rank(_tickets(NOISE, monday, urgency="urgent"), zone=SHANGHAI).hotspots[0]
    assert plain.heat < contested.heat < liked.heat
    assert urgent.heat == pytest.approx(plain.heat * 1.5, abs=0.01)
    assert liked.likes == 120 and contested.against == 90
    assert plain.place == "B2区幸福路" and plain.count == 3


def test_a_complaint_that_was_there_the_week_before_is_less_hot_than_a_new_one() -> None:
    monday = dt.datetime(2026, 11, 9, 9, tzinfo=SHANGHAI)
    new = hotspots_rank(_tickets(NOISE, monday), zone=SHANGHAI)
    before = _tickets(NOISE, monday - dt.timedelta(days=7))
    ongoing = hotspots_rank(
        [*(HotspotTicket(f"old{i}", t.text, t.time) for i, t in enumerate(before)), *_tickets(NOISE, monday)],
        period="latest",
        zone=SHANGHAI,
    )
    assert ongoing.hotspots[0].previous_count == 3 and new.hotspots[0].previous_count == 0
    assert ongoing.hotspots[0].heat == 3 < new.hotspots[0].heat
    assert [n for _, n in ongoing.hotspots[0].trend] == [3, 3]


@pytest.mark.parametrize(
    ("count", "previous", "urgent", "repeat", "supports", "heat"),
    [(2, 0, 0.0, 0.0, 0, 2 * (1 + 1.585)), (12, 0, 0.0, 0.0, 15, 12 * (1 + 3.7004) + 4), (4, 4, 1.0, 1.0, -9, 8)],
    ids=["pair", "burst with supports", "steady, urgent, all repeats, objections"],
)
def test_the_heat_index_is_the_documented_formula(
    count: int, previous: int, urgent: float, repeat: float, supports: int, heat: float
) -> None:
    assert heat_index(count, previous, urgent, repeat, supports) == pytest.approx(heat, abs=0.01)


def test_one_ticket_is_no_hotspot_and_no_tickets_give_none() -> None:
    monday = dt.datetime(2026, 11, 2, 9, tzinfo=SHANGHAI)
    assert hotspots_rank(_tickets(NOISE[:1], monday), zone=SHANGHAI).hotspots == ()
    assert hotspots_rank([], zone=SHANGHAI).hotspots == ()
    assert len(hotspots_rank(_tickets(NOISE[:1], monday), min_tickets=1, zone=SHANGHAI).hotspots) == 1


def test_the_same_complaint_in_two_districts_is_two_hotspots() -> None:
    monday = dt.datetime(2026, 11, 2, 9, tzinfo=SHANGHAI)
    elsewhere = [text.replace("B2区", "C5区") for text in NOISE]
    report = hotspots_rank(_tickets(NOISE + elsewhere, monday), zone=SHANGHAI)
    assert sorted(h.place_key for h in report.hotspots) == ["B2区", "C5区"]


@pytest.mark.parametrize(
    ("text", "label", "key"),
    [
        ("A3区枫林路的工地夜间施工", "A3区枫林路", "A3区"),
        ("A市A5区教育局不给学位", "A市A5区", "A5区"),
        ("湖南省长沙市岳麓区某小区停水三天", "湖南省长沙市岳麓区某小区", "岳麓区"),
        ("K3县楚江河污水横流，浯溪镇鲢鱼塘村地段", "K3县", "K3县"),
        ("我家住A市A2区幸福路8号，楼下A2区人民路口积水", "A2区人民路", "A2区"),
    ],
    ids=["district and street", "city and district", "gazetteer chain", "first of equals", "home address skipped"],
)
def test_a_tickets_place_is_its_most_specific_non_personal_place(text: str, label: str, key: str) -> None:
    place = ticket_place(text)
    assert place is not None and (place.label, place.key) == (label, key)


def test_a_ticket_naming_no_place_has_none() -> None:
    assert ticket_place("工资拖欠三个月了，老板不接电话。") is None


@pytest.mark.parametrize(
    ("moment", "window", "start"),
    [
        ("2026-11-29T23:30:00+08:00", "week", "2026-11-23"),  # a Sunday night belongs to the week of Monday 23rd
        ("2026-11-29T16:30:00+00:00", "week", "2026-11-30"),  # … but 16:30 UTC is Monday 00:30 in Shanghai
        ("2026-11-29T16:30:00", "day", "2026-11-29"),  # a time without a zone is the hotline's local time
        ("2026-12-31T10:00:00+08:00", "month", "2026-12-01"),
    ],
)
def test_windows_start_on_midnight_monday_or_the_first_in_the_hotlines_zone(
    moment: str, window: str, start: str
) -> None:
    got = window_start(dt.datetime.fromisoformat(moment), window, SHANGHAI)  # type: ignore[arg-type]
    assert got.date().isoformat() == start and got.tzinfo is SHANGHAI


def test_window_shift_crosses_years() -> None:
    december = dt.datetime(2026, 12, 1, tzinfo=ZONE)
    assert window_shift(december, "month", 1) == dt.datetime(2027, 1, 1, tzinfo=ZONE)
    assert window_shift(december, "month", -12) == dt.datetime(2025, 12, 1, tzinfo=ZONE)
    assert window_shift(december, "week", -1) == dt.datetime(2026, 11, 24, tzinfo=ZONE)
