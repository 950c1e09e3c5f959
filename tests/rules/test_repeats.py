"""Repeat complaints without Django: the places a ticket names, its signature, the in-memory LSH index."""

from __future__ import annotations

import pytest

from rules.tickets.place_names import Place, place_mentions, places_differ, places_shared, ticket_places
from rules.tickets.repeats import (
    BANDS,
    DEFAULT_THRESHOLD,
    RepeatIndex,
    repeat_evidence,
    ticket_shingles,
    ticket_signature,
)

EARLIER = [
    ("t-bbq", "A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请相关部门尽快处理，谢谢。"),
    ("t-school", "A市A2区实验小学门口上下学时段交通拥堵严重，希望增派交警疏导，保障孩子们的安全。"),
    ("t-wages", "B市某建材公司拖欠三十多名工人两个月工资，老板电话不接，请劳动监察部门介入处理。"),
    ("t-parking", "A市A5区幸福家园小区物业公司乱收停车费，每月涨到三百元，业主意见很大，希望有关部门查处。"),
]


def index() -> RepeatIndex:
    found = RepeatIndex()
    for ticket_id, text in EARLIER:
        found.add(ticket_id, ticket_signature(text))
    return found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "再次反映：B市某建材公司拖欠三十多名工人两个月工资，老板电话不接，请劳动监察部门介入处理。至今未解决！",
            "t-wages",
        ),
        ("A市A5区幸福家园小区物业公司乱收停车费,每月涨到三百元,业主意见很大,恳请有关部门查处.", "t-parking"),
        (
            "A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨三点，油烟和噪音严重扰民，请相关部门尽快处理。多次投诉无果。",
            "t-bbq",
        ),
    ],
    ids=["wages-again", "parking-punctuation-synonym", "bbq-time-changed"],
)
def test_reworded_repeat_is_found_first(text: str, expected: str) -> None:
    hits = index().repeats(ticket_signature(text))
    assert hits and hits[0].ticket_id == expected
    assert hits[0].score >= DEFAULT_THRESHOLD


@pytest.mark.parametrize(
    "text",
    [
        "A市A2区某中学食堂饭菜质量差，价格贵，学生吃不饱。",
        "A市A5区幸福家园小区门口的路灯坏了一个月没人修，晚上出行很不方便。",
        "C市某医院挂号难，排队三个小时，请卫健部门管一管。",
    ],
    ids=["other-school-topic", "same-estate-other-topic", "unrelated"],
)
def test_different_complaint_is_not_a_repeat(text: str) -> None:
    assert index().repeats(ticket_signature(text)) == []


def test_the_same_complaint_about_another_place_is_never_a_repeat() -> None:
    moved = EARLIER[0][1].replace("A5区幸福家园", "A7区阳光花园")
    evidence = repeat_evidence(ticket_signature(moved), ticket_signature(EARLIER[0][1]))
    assert evidence.text > 0.9 and evidence.places_differ
    assert not evidence.is_repeat(0.0)
    assert index().repeats(ticket_signature(moved), threshold=0.0) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A市A3区幸福小区", {Place("city", "a", "市"), Place("district", "a3", "区"), Place("estate", "幸福", "小区")}),
        ("湖南省长沙市岳麓区麓山街道", {Place("district", "岳麓", "区"), Place("town", "麓山", "街道")}),
        ("浯溪镇鲢鱼塘村地段的袋子厂", {Place("town", "浯溪", "镇"), Place("community", "鲢鱼塘", "村")}),
        ("家住中山路的居民", {Place("road", "中山", "路")}),
    ],
    ids=["anonymised-chain", "named-chain", "town-village", "road-after-verb"],
)
def test_places_are_read_with_their_level(text: str, expected: set[Place]) -> None:
    assert expected <= ticket_places(text)


@pytest.mark.parametrize(
    "text",
    ["我们小区门口的超市", "这个小区的马路太窄", "急盼县领导重视", "城市农村都一样"],
    ids=["our-estate-supermarket", "this-estate-road", "county-as-a-word", "city-and-village-as-words"],
)
def test_generic_place_words_name_no_place(text: str) -> None:
    assert ticket_places(text) == frozenset()


def test_place_names_differ_only_when_each_side_names_one_the_other_does_not() -> None:
    here, there = ticket_places("A3区幸福小区"), ticket_places("A3区阳光小区")
    assert places_differ(here, there) and places_shared(here, there)  # one district, two estates
    assert not places_differ(ticket_places("住在幸福小区"), ticket_places("反映幸福小区"))  # heads read differently
    assert not places_differ(ticket_places("A3区中山路幸福小区"), ticket_places("幸福小区"))  # one names more
    assert not places_differ(ticket_places("A3区"), ticket_places("没有地名"))
    assert places_differ(ticket_places("K3县"), ticket_places("K8县"))


def test_signature_is_stable_and_ignores_punctuation_digits_and_places() -> None:
    a = ticket_signature("A3区幸福小区噪音扰民，2019年3月5日起至今！")
    b = ticket_signature("A3区幸福小区噪音扰民2020年11月8日起至今")
    assert (a.values == b.values).all() and len(a.bands) == BANDS
    text = "幸福小区噪音扰民"
    assert "福小区" in ticket_shingles(text) and ticket_shingles(text, places=place_mentions(text)) == {
        "噪音扰",
        "音扰民",
    }
    assert ticket_signature("，。！").empty and index().repeats(ticket_signature("，。！")) == []


def test_index_excludes_the_ticket_itself_and_adds_once() -> None:
    found = index()
    text = EARLIER[1][1]
    found.add("t-school", ticket_signature(text))
    assert len(found) == len(EARLIER)
    assert [m.ticket_id for m in found.repeats(ticket_signature(text))] == ["t-school"]
    assert found.repeats(ticket_signature(text), exclude="t-school") == []
