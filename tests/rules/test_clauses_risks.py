"""Statutory risk checks on contract clauses: 定金 cap, 违约金/定金 choice, 竞业限制 length."""

from __future__ import annotations

import pytest

from rules.clauses import risk_checks
from rules.clauses.risks import DEPOSIT_OVER_LIMIT, NON_COMPETE_TOO_LONG, PENALTY_AND_DEPOSIT


def _codes(text: str) -> set[str]:
    return {flag.code for flag in risk_checks(text)}


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("合同总价为人民币100万元。买方应于签约后五日内支付定金人民币30万元。", True),
        ("合同总价为人民币100万元。买方应于签约后五日内支付定金人民币20万元。", False),
        ("买方应于签约之日支付相当于合同总额百分之二十五的定金。", True),
        ("买方应于签约之日支付相当于合同总额10%的定金。", False),
        ("本合同不设定金。合同总价为人民币100万元。", False),
    ],
    ids=["amount-30pct", "amount-20pct-at-cap", "share-25pct", "share-10pct", "no-deposit"],
)
def test_deposit_above_twenty_percent_is_flagged(text: str, flagged: bool) -> None:
    assert (DEPOSIT_OVER_LIMIT in _codes(text)) is flagged


def test_deposit_flag_cites_article_586_and_points_at_the_deposit() -> None:
    text = "合同总价为人民币100万元。买方应支付定金人民币30万元。"
    flag = next(f for f in risk_checks(text) if f.code == DEPOSIT_OVER_LIMIT)
    assert flag.basis == "民法典第586条"
    assert any("定金" in text[start:end] for start, end in flag.evidence)


def test_penalty_and_deposit_together_is_a_note() -> None:
    text = "乙方应支付定金人民币一万元。任何一方违约的，应向对方支付违约金人民币五千元。"
    flag = next(f for f in risk_checks(text) if f.code == PENALTY_AND_DEPOSIT)
    assert flag.severity == "note"
    assert flag.basis == "民法典第588条"


def test_penalty_without_deposit_is_not_flagged() -> None:
    assert PENALTY_AND_DEPOSIT not in _codes("本合同不设定金。违约方应支付违约金人民币五千元。")


@pytest.mark.parametrize(
    ("period", "flagged"),
    [("三年", True), ("36个月", True), ("二年", False), ("两年", False), ("24个月", False), ("一年", False)],
)
def test_non_compete_longer_than_two_years_is_flagged(period: str, flagged: bool) -> None:
    text = f"乙方离职后应履行竞业限制义务，竞业限制期限为{period}，期间不得到与甲方有竞争关系的单位任职。"
    assert (NON_COMPETE_TOO_LONG in _codes(text)) is flagged


def test_negated_non_compete_is_not_checked() -> None:
    assert _codes("双方不约定竞业限制，乙方离职三年后方可领取奖金。") == set()
