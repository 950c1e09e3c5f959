"""The offset map: every normalized span maps back to the smallest covering span of what the user sent."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.normalize import normalize
from rules.normalize.offsets import apply_edits

# Characters the normalizer treats specially, mixed with ordinary Chinese and ASCII.
SPECIAL = [
    *"佢哋唔係嘅喺咗緊冇啲嗰點解邊度依家乜嘢畀攞睇嚟啱係咪關係系統",
    *"甲方乙方第一条租金合同。，、；：？！（）“”「」『』…⋯,.;:?!()\"'ＡＢＣ１２３￥＿",
    *"裡著綫衞這個們為",
    *["\u3000", "\u00a0", "\u200b", "\ufeff", "\r\n", "\r", "\n", "\n\n", "\t", " ", "  ", "\x00", "\x07"],
    *["\ud800", "\udfff", "...", "。。。", "𠮶", "a", "Z", "9"],
]
texts = st.lists(st.sampled_from(SPECIAL), max_size=60).map("".join) | st.text(max_size=60)


@settings(max_examples=300, deadline=None)
@given(texts, st.data())
def test_spans_stay_in_range_and_nonempty(text: str, data: st.DataObject) -> None:
    result = normalize(text)
    length = len(result.text)
    start = data.draw(st.integers(0, length))
    end = data.draw(st.integers(start, length))
    original_start, original_end = result.to_original(start, end)
    assert 0 <= original_start <= original_end <= len(text)
    if end > start:
        assert original_end > original_start
    else:
        assert original_start == original_end


@settings(max_examples=200, deadline=None)
@given(texts)
def test_mapping_is_monotone(text: str) -> None:
    result = normalize(text)
    starts = [result.to_original(i, i + 1)[0] for i in range(len(result.text))]
    ends = [result.to_original(i, i + 1)[1] for i in range(len(result.text))]
    assert starts == sorted(starts)
    assert ends == sorted(ends)
    gaps = [result.to_original(i, i)[0] for i in range(len(result.text) + 1)]
    assert gaps == sorted(gaps)


@settings(max_examples=200, deadline=None)
@given(texts)
def test_span_covers_its_characters(text: str) -> None:
    result = normalize(text)
    for i in range(len(result.text)):
        start, end = result.to_original(i, len(result.text))
        first, _ = result.to_original(i, i + 1)
        _, last = result.to_original(len(result.text) - 1, len(result.text))
        assert (start, end) == (first, last)


@pytest.mark.parametrize(
    ("original", "needle", "expected_original"),
    [
        ("点击\u200b\u200b确认", "确认", "确认"),
        ("佢哋點解唔嚟？", "为什么", "點解"),
        ("我喺深圳辦咗卡", "了", "咗"),
        ("合同\r\n编号", "编号", "编号"),
        ("租金   三千元", "三千元", "三千元"),
        ("承租方应当按时支付\n租金", "支付租金", "支付\n租金"),
        ("等一下...好", "……", "..."),
        ("ＡＢＣ公司", "ABC", "ＡＢＣ"),
        ("兩份合同", "两份", "兩份"),
    ],
    ids=[
        "zero-width-removed",
        "dialect-2-to-3",
        "dialect-1-to-1",
        "crlf",
        "collapsed-spaces",
        "joined-line",
        "ellipsis",
        "width-fold",
        "script",
    ],
)
def test_span_shows_on_the_original(original: str, needle: str, expected_original: str) -> None:
    result = normalize(original)
    start = result.text.index(needle)
    original_start, original_end = result.to_original(start, start + len(needle))
    assert original[original_start:original_end] == expected_original


def test_out_of_range_spans_are_clamped() -> None:
    result = normalize("合同\u200b编号")
    assert result.to_original(-5, 100) == (0, 5)
    assert result.to_original(3, 1) == (4, 4)


def test_apply_edits_without_edits_has_no_map() -> None:
    assert apply_edits("合同", []) == ("合同", None)


def test_group_multichar_maps_a_block() -> None:
    text, step = apply_edits("用紧了", [(0, 2, "在用")], group_multichar=True)
    assert text == "在用了"
    assert step is not None
    assert step.span(1, 2) == (0, 2)
    assert step.span(2, 3) == (2, 3)
