"""Money and percentage parsing over contract and ticket wording."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.amounts import (
    AmountMatch,
    find_amounts,
    find_percentages,
    parse_amount,
    parse_chinese_number,
    parse_number,
    parse_percentage,
)

AMOUNTS = [
    ("1,200.50", "1200.50", "arabic-thousands-and-cents"),
    ("1200.5元", "1200.5", "arabic-decimal-yuan"),
    ("¥1,200.50", "1200.50", "yen-sign"),
    ("￥1,200.50", "1200.50", "fullwidth-yen-sign"),
    ("RMB 5000", "5000", "rmb-prefix-space"),
    ("RMB5,000.00元", "5000", "rmb-prefix-and-unit"),
    ("人民币50万元", "500000", "renminbi-wan"),
    ("5.5万元", "55000", "decimal-wan"),
    ("3亿元", "300000000", "yi"),
    ("一千二百元", "1200", "lower-case-chinese"),
    ("壹仟贰佰元整", "1200", "upper-case-zheng"),
    ("壹拾万元整", "100000", "upper-ten-wan"),
    ("叁万伍仟元", "35000", "upper-wan-qian"),
    ("十万", "100000", "leading-shi"),
    ("两千", "2000", "liang"),
    ("一百零五", "105", "inner-zero"),
    ("一千零一十", "1010", "inner-zero-ten"),
    ("贰佰万元", "2000000", "upper-bai-wan"),
    ("壹佰元伍角叁分", "100.53", "jiao-fen"),
    ("伍拾元零伍分", "50.05", "zero-jiao-fen"),
    ("5万", "50000", "mixed-wan"),
    ("1.2亿", "120000000", "mixed-decimal-yi"),
    ("3千", "3000", "mixed-qian"),
    ("三亿五千万元", "350000000", "yi-then-wan"),
    ("一万五", "15000", "colloquial-trailing-digit"),
    ("人民币（大写）：壹佰贰拾万元整", "1200000", "daxie-label"),
    ("１２００元", "1200", "fullwidth-digits"),
    ("一点五万元", "15000", "chinese-decimal-point"),
]


@pytest.mark.parametrize(("text", "expected"), [a[:2] for a in AMOUNTS], ids=[a[2] for a in AMOUNTS])
def test_parse_amount_reads_the_value(text: str, expected: str) -> None:
    assert parse_amount(text) == Decimal(expected)


NOT_AMOUNTS = [
    ("第三条", "clause-number"),
    ("万元", "bare-unit-header"),
    ("一百千", "stacked-units"),
    ("一二百", "digits-without-unit"),
    ("", "empty"),
    ("甲方", "no-number"),
]


@pytest.mark.parametrize("text", [n[0] for n in NOT_AMOUNTS], ids=[n[1] for n in NOT_AMOUNTS])
def test_parse_amount_rejects_non_amounts(text: str) -> None:
    assert parse_amount(text) is None


def test_parse_number_reads_years_digit_by_digit() -> None:
    assert parse_chinese_number("二〇二三") == Decimal(2023)
    assert parse_number("3千5百") == Decimal(3500)


FOUND = [
    (
        "合同总价款为人民币壹佰贰拾万元整（¥1,200,000.00），含税。",
        [("人民币壹佰贰拾万元整", "1200000"), ("¥1,200,000.00", "1200000")],
        "total-price-upper-and-lower",
    ),
    (
        "乙方应于签约后三日内向甲方支付定金人民币伍万元整（¥50,000.00）。",
        [("人民币伍万元整", "50000"), ("¥50,000.00", "50000")],
        "deposit",
    ),
    ("月租金为3500元，押一付三。", [("3500元", "3500")], "monthly-rent"),
    ("货款共计 12.5 万元", [("12.5 万元", "125000")], "spaced-wan"),
    ("以前红砖0.24元一块，现在要0.35元一块", [("0.24元", "0.24"), ("0.35元", "0.35")], "ticket-prices"),
    ("本合同自2023年5月1日起生效，第三条另有约定的除外。", [], "dates-and-clause-numbers-are-not-money"),
    ("单位：万元", [], "table-unit-header"),
    ("A市A3区1号楼2单元301室", [], "address-unit-is-not-yuan"),
]


@pytest.mark.parametrize(("text", "expected"), [f[:2] for f in FOUND], ids=[f[2] for f in FOUND])
def test_find_amounts_needs_a_money_cue(text: str, expected: list[tuple[str, str]]) -> None:
    found = find_amounts(text)
    assert [(m.raw, m.value) for m in found] == [(raw, Decimal(v)) for raw, v in expected]
    for match in found:
        assert text[match.start : match.end] == match.raw


CURRENCIES = [
    ("货款500美元", "USD", "meiyuan"),
    ("US$ 1,000", "USD", "us-dollar-sign"),
    ("港币2000元", "CNY", "hkd-word-before-cny-unit-keeps-unit"),
    ("2000港元", "HKD", "hkd-unit"),
    ("人民币100元", "CNY", "renminbi"),
]


@pytest.mark.parametrize(("text", "currency"), [c[:2] for c in CURRENCIES], ids=[c[2] for c in CURRENCIES])
def test_find_amounts_reports_the_currency(text: str, currency: str) -> None:
    (match,) = find_amounts(text)
    assert match.currency == currency


def test_amount_match_is_frozen() -> None:
    match = AmountMatch(0, 4, "100元", Decimal(100), "CNY")
    with pytest.raises(AttributeError):
        match.value = Decimal(1)  # type: ignore[misc]


PERCENTAGES = [
    ("20%", "20", "arabic"),
    ("20.5％", "20.5", "fullwidth-percent"),
    ("百分之二十", "20", "baifenzhi"),
    ("百分之五点五", "5.5", "baifenzhi-decimal"),
    ("百分之零点五", "0.5", "baifenzhi-below-one"),
    ("百分之30", "30", "baifenzhi-arabic"),
    ("千分之五", "0.5", "qianfenzhi"),
    ("万分之五", "0.05", "daily-late-fee-wanfenzhi"),
]


@pytest.mark.parametrize(("text", "expected"), [p[:2] for p in PERCENTAGES], ids=[p[2] for p in PERCENTAGES])
def test_parse_percentage(text: str, expected: str) -> None:
    assert parse_percentage(text) == Decimal(expected)


def test_parse_percentage_rejects_plain_numbers() -> None:
    assert parse_percentage("二十") is None
    assert parse_percentage("违约金为百分之二十") is None  # one expression, not a sentence


def test_find_percentages_in_penalty_clause() -> None:
    text = "违约金为合同总价款的百分之二十（20%），逾期每日按万分之五计收滞纳金。"
    found = find_percentages(text)
    assert [(p.raw, p.value) for p in found] == [
        ("百分之二十", Decimal(20)),
        ("20%", Decimal(20)),
        ("万分之五", Decimal("0.05")),
    ]


@given(st.text(max_size=200))
def test_find_amounts_never_raises(text: str) -> None:
    for match in find_amounts(text):
        assert text[match.start : match.end] == match.raw
    find_percentages(text)
    parse_amount(text)
    parse_percentage(text)
