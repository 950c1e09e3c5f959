"""Urgency cues for tickets (no Django; repeat complaints are tested in test_repeats.py)."""

from __future__ import annotations

import pytest

from rules.tickets import urgency_cues


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
