"""Key terms as a lawyer reads them (¥100,000.00（含税）, 3 年, 日万分之五), the Word report's words for them, their
sort keys (amounts as numbers, dates as dates) and a reviewer's typed correction read as the rules read contracts."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from contracts.legal.report.comments import term_comment
from contracts.legal.term_values import fraction_text, term_correction, term_sort_key, term_value_text
from rules.contract_terms import key_terms, value_json

LEASE = (
    "房屋租赁合同\n出租人（甲方）：北京某某置业有限公司\n承租人（乙方）：张三\n"
    "第一条 租赁期限自2026年3月1日起至2029年2月28日止，共三年。\n"
    "第二条 租金为人民币壹拾万元整（¥100,000.00），含税。\n"
    "第三条 乙方应支付定金人民币20,000元。\n"
    "第四条 逾期支付的，每日按应付未付金额的万分之五支付违约金。\n"
    "第五条 争议提交北京仲裁委员会仲裁。\n"
)


def _terms(text: str) -> dict[str, dict[str, Any]]:
    """The contract's term findings as the legal desk stores them (the fields the grid and the report read)."""
    return {
        term.kind: {"kind": "term", "label": term.kind, "value": value_json(term.value), "status": term.status}
        for term in key_terms(text)
    }


def test_term_values_read_as_a_lawyer_writes_them() -> None:
    terms = _terms(LEASE)
    assert term_value_text(terms["price"]) == "¥100,000.00（含税）"
    assert term_value_text(terms["deposit"]) == "¥20,000.00（占价款 20%）"
    assert term_value_text(terms["penalty"]) == "日万分之五（逾期款项）"
    assert term_value_text(terms["forum"]) == "仲裁：北京仲裁委员会"
    assert term_value_text(terms["effective_date"]) == "2026-03-01"
    assert term_value_text({"status": "blank", "value": None}) == "（空白待填）"
    assert term_value_text({"value": {"type": "duration", "amount": "3", "unit": "year"}}) == "3 年"


@pytest.mark.parametrize(
    ("fraction", "written"),
    [("0.2", "20%"), ("0.003", "千分之三"), ("0.0005", "万分之五"), ("0.05", "5%"), ("0.00015", "0.015%")],
    ids=["percent", "per-mille", "per-ten-thousand", "five-percent", "no-whole-scale"],
)
def test_rates_are_written_at_the_scale_contracts_use(fraction: str, written: str) -> None:
    assert fraction_text(Decimal(fraction)) == written


def test_the_report_comments_a_term_by_its_chinese_name_and_readable_value() -> None:
    terms = _terms(LEASE)
    assert term_comment(terms["price"]) == "关键条款｜价款：¥100,000.00（含税）"
    assert term_comment(terms["penalty"]) == "关键条款｜违约金：日万分之五（逾期款项）"
    assert term_comment({"kind": "term", "label": "deposit", "status": "blank"}) == "关键条款｜定金：（空白待填）"


def test_sort_keys_compare_amounts_as_numbers_and_dates_as_dates() -> None:
    money = [{"value": {"type": "money", "amount": a, "currency": "CNY"}} for a in ("9000", "100000", "25000.5")]
    assert sorted(money, key=term_sort_key) == [money[0], money[2], money[1]]  # not by text ("100000" < "9000")
    assert term_sort_key({"value": "2026-03"}) == (1, date(2026, 3, 1))
    months, days = ({"value": {"type": "duration", "amount": n, "unit": u}} for n, u in (("2", "month"), ("45", "day")))
    assert term_sort_key(days) < term_sort_key(months)  # 45 days before 2 months
    assert term_sort_key({"status": "blank"}) < term_sort_key(None)  # blank before missing, both after values


def test_a_typed_correction_is_read_as_the_rules_read_contracts() -> None:
    assert term_correction("price", "壹拾贰万元整（含税）") == {
        "value": {"type": "money", "amount": "120000", "currency": "CNY", "tax_included": True},
        "normalised": "CNY 120000",
        "status": "agreed",
    }
    assert term_correction("expiry_date", "二〇三〇年二月二十八日")["value"] == "2030-02-28"
    assert term_correction("penalty", "日千分之三")["normalised"] == "0.003/day"
    assert term_correction("deposit", "5万元")["value"]["amount"]["amount"] == "50000"
    assert term_correction("forum", "上海市浦东新区人民法院")["value"] == "上海市浦东新区人民法院"
    assert term_correction("price", "  ")["status"] == "blank"
