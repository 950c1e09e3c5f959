"""Statutory checks with the article in the result: each with contract sentences that break it and that keep it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from rules.clauses import risk_checks
from rules.clauses.statutes import RiskFlag, contract_type
from rules.clauses.statutes.civil_code import (
    FORMAT_TERM_EXCLUDES_RIGHTS,
    FORMAT_TERM_WITHOUT_NOTICE,
    INTERPRETATION_RESERVED,
    PENALTY_FAR_ABOVE_LOSS,
    VOID_EXCLUSION,
)
from rules.clauses.statutes.labour import (
    EMPLOYEE_PENALTY,
    NON_COMPETE_UNPAID,
    PROBATION_TOO_LONG,
    PROBATION_WAGE_TOO_LOW,
)
from rules.clauses.statutes.lease_and_loan import INTEREST_OVER_LPR_CAP, LEASE_OVER_20_YEARS, load_lpr

LEASE = "房屋租赁合同\n出租人（甲方）：某某置业有限公司\n承租人（乙方）：某某餐饮管理有限公司\n"
LOAN = "借款合同\n出借人（甲方）：张某\n借款人（乙方）：李某\n"
LABOUR = "劳动合同书\n用人单位（甲方）：某某科技有限公司\n劳动者（乙方）：王某\n"
SALE = "设备买卖合同\n出卖人（甲方）：某某机械有限公司\n买受人（乙方）：某某制造有限公司\n"


def flagged(text: str, code: str, minimum_wage: Decimal | None = None) -> bool:
    return code in {flag.code for flag in risk_checks(text, minimum_wage=minimum_wage)}


def only(text: str, code: str) -> RiskFlag:
    return next(flag for flag in risk_checks(text) if flag.code == code)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (LEASE, "lease"),
        (LOAN, "loan"),
        (LABOUR, "labour"),
        (SALE, "sale"),
        ("劳务合同\n甲方：某某物业公司\n乙方：赵某\n", "general"),
        ("甲方（出租人）：某某公司\n乙方（承租人）：某某个人\n第一条 租赁物", "lease"),
        ("技术服务合同\n委托方：某某公司\n受托方：某某研究所\n", "general"),
    ],
    ids=["lease-title", "loan-title", "labour-title", "sale-title", "service-is-not-labour", "lease-roles", "service"],
)
def test_contract_type_from_title_or_roles(text: str, kind: str) -> None:
    assert contract_type(text).kind == kind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SALE + "合同总价为人民币100万元。乙方逾期交货的，应按合同总价的50%向甲方支付违约金。", True),
        (SALE + "乙方逾期付款的，每逾期一日，按逾期未付款项的千分之五向甲方支付违约金。", True),
        (SALE + "合同总价为人民币100万元。任何一方违约的，应向对方支付违约金人民币40万元。", True),
        (SALE + "乙方逾期交货的，应按合同总价的10%向甲方支付违约金。", False),
        (SALE + "乙方逾期付款的，每逾期一日，按逾期未付款项的万分之五向甲方支付违约金。", False),
        (SALE + "合同总价为人民币100万元。任何一方违约的，应向对方支付违约金人民币5万元。", False),
        (SALE + "甲方未按时提供图纸的，除工期顺延外，每日应偿付乙方顺延部分工程总价千分之一的违约金。", True),
    ],
    ids=[
        "share-50pct",
        "daily-0.5pct",
        "amount-40pct",
        "share-10pct",
        "daily-0.05pct",
        "amount-5pct",
        "daily-cue-far-before-the-rate",
    ],
)
def test_585_penalty_far_above_loss(text: str, expected: bool) -> None:
    assert flagged(text, PENALTY_FAR_ABOVE_LOSS) is expected


def test_585_cites_the_article_and_the_30_percent_practice() -> None:
    flag = only(SALE + "乙方逾期交货的，应按合同总价的50%向甲方支付违约金。", PENALTY_FAR_ABOVE_LOSS)
    assert flag.article is not None and (flag.article.law, flag.article.number) == ("民法典", "第585条")
    assert "30%" in flag.message and flag.basis == "民法典第585条"
    start, end = flag.evidence[0]
    assert "违约金" in (SALE + "乙方逾期交货的，应按合同总价的50%向甲方支付违约金。")[start:end]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("本合同所列格式条款由甲方提供。因系统故障造成乙方数据丢失的，甲方不承担任何责任。", True),
        (
            "甲方已以加粗字体提示乙方注意免除或减轻甲方责任的条款。因系统故障造成乙方数据丢失的，甲方不承担任何责任。",
            False,
        ),
        ("因不可抗力不能履行合同的，受影响一方不承担责任。", False),
        ("如因人力不可抗拒的原因致使不能按期交货，卖方概不负责。", False),
        ("承包人提交施工计划，并不免除其任何合同责任。", False),
        ("双方经协商一致订立本合同。甲方对乙方的间接损失不承担责任。", False),
        ("本条不限制乙方依第八条承担的任何责任。", False),
    ],
    ids=[
        "exclusion-without-notice",
        "exclusion-in-bold-with-notice",
        "force-majeure-is-statutory",
        "force-majeure-old-wording",
        "not-relieved",
        "narrow-exclusion-negotiated",
        "not-limited",
    ],
)
def test_496_exclusion_without_notice(text: str, expected: bool) -> None:
    assert flagged(text, FORMAT_TERM_WITHOUT_NOTICE) is expected


def test_496_is_a_warning_on_a_form_and_a_note_elsewhere() -> None:
    form = "本合同为格式合同，条款由甲方提供。甲方对乙方的间接损失不承担责任。"
    plain = "双方经协商一致订立本合同。甲方对乙方的任何间接损失不承担责任。"
    assert only(form, FORMAT_TERM_WITHOUT_NOTICE).severity == "warning"
    assert only(plain, FORMAT_TERM_WITHOUT_NOTICE).severity == "note"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("用户确认，无论何种原因，用户放弃向平台追究任何赔偿责任的权利。", True),
        ("合同签订后，买方不得以任何理由解除合同或要求退款。", True),
        ("承租人未经出租人书面同意不得将房屋转租。", False),
        ("乙方有权在甲方逾期交付超过三十日时解除合同。", False),
        ("任何一方未行使或迟延行使本合同项下的权利，不应视为放弃该权利。", False),
        ("买方在验收期内未提出书面异议的，视为放弃质量异议。", False),
        ("买方收货后十五天内未提出索赔的，视为货物合格，且放弃一切有关权利要求。", False),
    ],
    ids=[
        "waives-claims",
        "no-termination-for-any-reason",
        "no-sublease-is-fine",
        "right-kept",
        "non-waiver",
        "deemed",
        "deemed-then-waived",
    ],
)
def test_497_terms_excluding_main_rights(text: str, expected: bool) -> None:
    assert flagged(text, FORMAT_TERM_EXCLUDES_RIGHTS) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("本活动规则及本合同的最终解释权归甲方所有。", True),
        ("本合同条款的解释权属于乙方。", True),
        ("本合同未尽事宜，由双方协商后签订补充协议。", False),
    ],
    ids=["final-interpretation-reserved", "interpretation-belongs-to-one-side", "settle-by-agreement"],
)
def test_498_interpretation_reserved_to_the_drafter(text: str, expected: bool) -> None:
    assert flagged(text, INTERPRETATION_RESERVED) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("乙方员工在施工过程中发生的人身伤亡，甲方概不负责。", True),
        ("学员在训练中受伤的，培训机构不承担任何责任。", True),
        ("即使因甲方故意或者重大过失造成乙方财产损失，甲方亦不承担赔偿责任。", True),
        ("因乙方故意或重大过失造成甲方损失的，乙方应承担赔偿责任。", False),
        ("甲方对乙方的间接损失不承担责任，但因甲方故意或重大过失造成的除外。", False),
        ("如非出于受托人自身故意或重大过失，受托人对委托财产的损失不承担责任。", False),
    ],
    ids=[
        "injury-excluded",
        "trainee-injury-excluded",
        "gross-fault-excluded",
        "fault-makes-liable",
        "carve-out",
        "only-without-fault",
    ],
)
def test_506_void_exclusions(text: str, expected: bool) -> None:
    assert flagged(text, VOID_EXCLUSION) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LEASE + "第二条 租赁期限为三十年，自2026年1月1日起计算。", True),
        (LEASE + "第二条 租赁期限自2020年1月1日起至2045年12月31日止。", True),
        (LEASE + "第二条 租赁期限为十年，自2026年1月1日起计算。", False),
        (LEASE + "第二条 租赁期限自2026年1月1日起至2045年12月31日止。", False),
        (SALE + "第二条 质保期为三十年。租期届满后买方可续租设备。租赁期限为三十年。", False),
    ],
    ids=["thirty-years", "range-26-years", "ten-years", "range-20-years", "not-a-lease"],
)
def test_705_lease_over_twenty_years(text: str, expected: bool) -> None:
    assert flagged(text, LEASE_OVER_20_YEARS) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LOAN + "本合同于2025年6月1日签订。借款年利率为15%，按月付息。", True),
        (LOAN + "本合同于2025年6月1日签订。借款月利率为2%。", True),
        (LOAN + "本合同于2025年6月1日签订。借款利息按月息二分计算。", True),
        (LOAN + "本合同于2025年6月1日签订。借款年利率为10%。", False),
        (LOAN + "本合同于2021年3月1日签订。借款年利率为15%。", False),
        (SALE + "本合同于2025年6月1日签订。逾期付款的按年利率15%计付利息。", False),
        ("借款合同\n贷款人：某某银行股份有限公司\n借款人：某某公司\n本合同于2025年6月1日签订。年利率为15%。", False),
        (LOAN + "本合同于2025年6月1日签订。借款年利率为6%，逾期还款的在本合同利率基础上加收利息50%。", False),
        (LOAN + "本合同于2025年6月1日签订。借款自2025年7月1日起按利率10%计息。", False),
        (LOAN + "本合同于2025年6月1日签订。借款年利率为10%，最高不超过年利率24%。", True),
    ],
    ids=[
        "15pct-2025",
        "monthly-2pct",
        "yuexi-two-fen",
        "10pct-2025",
        "15pct-2021-cap-15.4",
        "not-a-loan",
        "bank-lender",
        "surcharge-is-not-a-rate",
        "the-day-of-a-date-is-no-daily-rate",
        "a-cap-is-a-rate-allowed",
    ],
)
def test_680_interest_over_four_times_lpr(text: str, expected: bool) -> None:
    assert flagged(text, INTEREST_OVER_LPR_CAP) is expected


def test_680_uses_the_lpr_of_the_contract_date_from_the_pack() -> None:
    lpr = load_lpr()
    assert (lpr.pack, lpr.cap_multiple) == ("lpr", Decimal(4))
    flag = only(LOAN + "本合同于2025年6月1日签订。借款年利率为15%。", INTEREST_OVER_LPR_CAP)
    assert "3.00%" in flag.message and "12.00%" in flag.message and flag.basis == "民法典第680条"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LABOUR + "本合同期限为一年，自2026年1月1日起至2026年12月31日止。试用期为三个月。", True),
        (LABOUR + "本合同期限为二个月。试用期为十五天。", True),
        (LABOUR + "本合同为无固定期限劳动合同。试用期为八个月。", True),
        (LABOUR + "本合同期限为一年，自2026年1月1日起至2026年12月31日止。试用期为二个月。", False),
        (LABOUR + "本合同期限为三年。试用期为六个月。", False),
        (LABOUR + "本合同期限为六个月。试用期为一个月。", False),
        (LABOUR + "本合同期限为一年。其中试用期为　　个月（自一九　　年　　月　　日起）。", False),
    ],
    ids=["1y-3m", "2m-any", "open-8m", "1y-2m", "3y-6m", "6m-1m", "blank-form"],
)
def test_labour_19_probation_by_term(text: str, expected: bool) -> None:
    assert flagged(text, PROBATION_TOO_LONG) is expected


@pytest.mark.parametrize(
    ("text", "minimum", "expected"),
    [
        (LABOUR + "乙方月工资为人民币8000元。试用期工资为人民币5000元/月。", None, True),
        (LABOUR + "试用期工资按转正后工资的70%发放。", None, True),
        (LABOUR + "乙方月工资为人民币2500元。试用期工资为人民币2000元/月。", Decimal(2490), True),
        (LABOUR + "乙方月工资为人民币8000元。试用期工资为人民币6400元/月。", None, False),
        (LABOUR + "试用期工资按转正后工资的百分之八十发放。", None, False),
        (LABOUR + "乙方月工资为人民币3000元。试用期工资为人民币2800元/月。", Decimal(2490), False),
    ],
    ids=["5000-of-8000", "70pct", "below-minimum", "6400-of-8000", "80pct", "above-minimum"],
)
def test_labour_20_probation_wage(text: str, minimum: Decimal | None, expected: bool) -> None:
    assert flagged(text, PROBATION_WAGE_TOO_LOW, minimum_wage=minimum) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LABOUR + "乙方离职后二年内应遵守竞业限制义务，不得到与甲方有竞争关系的单位任职。", True),
        (LABOUR + "乙方离职后一年内应遵守竞业限制义务，竞业限制补偿已包含在乙方在职期间的工资中。", True),
        (
            LABOUR + "乙方离职后一年内应遵守竞业限制义务，竞业限制期间甲方按月向乙方支付经济补偿，标准为月工资的30%。",
            False,
        ),
        (LABOUR + "双方不约定竞业限制。", False),
    ],
    ids=["no-pay", "pay-in-salary", "monthly-pay", "no-covenant"],
)
def test_labour_23_non_compete_needs_compensation(text: str, expected: bool) -> None:
    assert flagged(text, NON_COMPETE_UNPAID) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (LABOUR + "乙方提前解除劳动合同的，应向甲方支付违约金人民币5000元。", True),
        (LABOUR + "乙方违反保密义务的，应向甲方支付违约金人民币二万元。", True),
        (LABOUR + "乙方违反服务期约定的，应按照尚未履行服务期对应的培训费用向甲方支付违约金。", False),
        (LABOUR + "乙方违反竞业限制约定的，应向甲方支付违约金人民币五万元。", False),
        (LABOUR + "甲方未按时足额支付劳动报酬的，应向乙方支付违约金。", False),
        (SALE + "乙方提前解除合同的，应向甲方支付违约金人民币5000元。", False),
    ],
    ids=["early-quit", "confidentiality", "training-service-period", "non-compete", "employer-pays", "not-labour"],
)
def test_labour_25_penalty_on_the_employee(text: str, expected: bool) -> None:
    assert flagged(text, EMPLOYEE_PENALTY) is expected


def test_every_flag_carries_its_article_with_a_gist() -> None:
    text = LABOUR + "本合同期限为一年。试用期为三个月。乙方提前解除劳动合同的，应向甲方支付违约金人民币5000元。"
    flags = risk_checks(text)
    assert {f.code for f in flags} >= {PROBATION_TOO_LONG, EMPLOYEE_PENALTY}
    for flag in flags:
        assert flag.article is not None and flag.article.law == "劳动合同法" and flag.article.gist
        assert flag.basis == flag.article.citation and flag.evidence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("买方应于签约之日支付相当于勘察费的30%的定金。", True),
        ("买方应先付购房款40%，（其中10%为定金）。", False),
    ],
    ids=["deposit-30pct", "price-share-holds-a-10pct-deposit"],
)
def test_586_reads_the_share_that_belongs_to_the_deposit(text: str, expected: bool) -> None:
    assert flagged(text, "deposit_over_20_percent") is expected
