"""Urgency cues and repeat-complaint detection for tickets (no Django)."""

from __future__ import annotations

import pytest

from rules.tickets import RepeatDetector, urgency_cues


@pytest.mark.parametrize(
    ("text", "level", "cue"),
    [
        ("楼道电线老化裸露，存在严重安全隐患", "high", "安全隐患"),
        ("小区燃气泄漏，气味很重，情况紧急，请马上派人", "urgent", "燃气泄漏"),
        ("老旧楼房外墙开裂，随时可能坍塌，威胁居民人身安全", "urgent", "人身安全"),
        ("这个问题我们已经多次反映，至今未解决", "high", "多次反映"),
        ("工地塔吊存在安全隐患，业主多次投诉无人理睬", "urgent", "安全隐患"),
        ("小区里存在不少安全隐患，希望排查", "high", "安全隐患"),
    ],
    ids=["hazard", "gas-leak", "collapse", "repeated", "hazard-and-repeat", "pseudo-negation-buliao"],
)
def test_urgency_cues_raise_the_level(text: str, level: str, cue: str) -> None:
    urgency = urgency_cues(text)
    assert urgency.level == level
    found = [c for c in urgency.cues if c.term == cue]
    assert found and text[found[0].start : found[0].end] == cue


@pytest.mark.parametrize(
    "text",
    [
        "经过排查，小区没有安全隐患",
        "电梯已经修好，不存在任何危险",
        "只是咨询一下政策，并不紧急",
        "维修后无安全隐患，感谢物业",
    ],
    ids=["meiyou", "bucunzai", "bingbu", "wu"],
)
def test_negated_cues_are_not_counted(text: str) -> None:
    urgency = urgency_cues(text)
    assert urgency.level == "normal"
    assert urgency.negated, "the negated cue should be reported as ignored"


def test_negation_does_not_cross_a_clause_break() -> None:
    urgency = urgency_cues("物业没有人管，安全隐患很大")
    assert urgency.level == "high"


def test_plain_ticket_is_normal() -> None:
    assert urgency_cues("请问公积金贷款需要哪些材料？").level == "normal"


EARLIER = [
    ("t-bbq", "A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请相关部门处理"),
    ("t-school", "A市A2区实验小学门口上下学时段交通拥堵严重，希望增派交警疏导"),
    ("t-wages", "B市某建材公司拖欠三十多名工人两个月工资，老板电话不接，请劳动监察部门介入"),
    ("t-parking", "A市A5区幸福家园小区物业公司乱收停车费，每月涨到三百元，业主意见很大"),
    ("t-site", "A市A5区幸福家园小区旁的工地晚上施工噪音太大，影响休息"),
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B市一家建材公司欠了三十多个工人两个月的工资，老板不接电话，请劳动监察介入", "t-wages"),
        ("A市A5区幸福家园小区的停车费被物业涨到每月三百元，业主很有意见", "t-parking"),
        ("再次反映：A市A5区幸福家园小区旁边烧烤店营业到凌晨两点，油烟噪音扰民", "t-bbq"),
    ],
    ids=["wages-reworded", "parking-reworded", "bbq-again"],
)
def test_reworded_repeat_is_found_first(text: str, expected: str) -> None:
    hits = RepeatDetector(EARLIER).similar(text)
    assert hits and hits[0].ticket_id == expected
    assert hits[0].score >= 0.3


@pytest.mark.parametrize(
    "text",
    [
        "A市A2区某中学食堂饭菜质量差，价格贵",
        "A市A5区幸福家园小区门口的路灯坏了一个月没人修",
        "C市某医院挂号难，排队三个小时",
    ],
    ids=["other-school-topic", "same-estate-other-topic", "unrelated"],
)
def test_different_complaint_is_not_a_repeat(text: str) -> None:
    assert RepeatDetector(EARLIER).similar(text) == []


def test_detector_grows_and_can_exclude_the_ticket_itself() -> None:
    detector = RepeatDetector()
    assert detector.similar("任何内容") == []
    detector.add("a", "小区噪音扰民，晚上广场舞音响太大")
    detector.add("b", "小区广场舞音响太大，晚上噪音扰民")
    assert len(detector) == 2
    assert [hit.ticket_id for hit in detector.similar("小区噪音扰民，晚上广场舞音响太大", exclude="a")] == ["b"]
    assert detector.similar("，。！") == []
