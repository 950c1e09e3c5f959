"""Key terms of a contract as normalised values (`rules.contract_terms`), over snippets written for these tests."""

from __future__ import annotations

import json
import statistics

import pytest

from rules.contract_terms import (
    BLANK,
    Party,
    is_blank,
    key_terms,
    parse_date,
    parse_duration,
    parse_rate,
)
from rules.normalize import normalize
from tests.shared_data import shared_file


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("二〇二六年三月一日", "2026-03-01"),
        ("2026年3月1日", "2026-03-01"),
        ("2026 年 3 月 1 日", "2026-03-01"),
        ("2026-03-01", "2026-03-01"),
        ("２０２６年３月１日", None),  # full-width digits are turned to ASCII by key_terms first
        ("前＿天", None),
        ("＿＿年＿＿月＿＿日", None),
    ],
    ids=["chinese-numerals", "arabic", "spaced", "iso", "full-width-raw", "blank-days", "blank-date"],
)
def test_parse_date(text: str, expected: str | None) -> None:
    assert parse_date(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("自签订之日起三年", "3 year"),
        ("五个工作日", "5 workday"),
        ("二十四个月", "24 month"),
        ("30日内", "30 day"),
        ("三十（30）天", "30 day"),
        ("一年半", "1.5 year"),
        ("半年", "0.5 year"),
        ("96年", None),
        ("96年3月", None),
        ("第三年", None),
        ("3月1日", None),
        ("前＿天", None),
        ("一九 年", None),
    ],
    ids=[
        "from-signing-three-years",
        "workdays",
        "months",
        "days-within",
        "chinese-with-arabic",
        "year-and-a-half",
        "half-year",
        "two-digit-year-is-no-duration",
        "year-month-is-a-date",
        "ordinal-year",
        "date-day",
        "blank",
        "year-digits-of-a-blank-date",
    ],
)
def test_parse_duration(text: str, expected: str | None) -> None:
    value = parse_duration(text)
    assert (value.normalised() if value else None) == expected


@pytest.mark.parametrize(
    ("text", "fraction", "period", "base"),
    [
        ("百分之二十", "0.2", None, None),
        ("日万分之五", "0.0005", "day", None),
        ("每日千分之三", "0.003", "day", None),
        ("按未付金额每日万分之五", "0.0005", "day", "unpaid"),
        ("每逾期一天，按合同总价的千分之一", "0.001", "day", "price"),
        ("年利率6%", "0.06", "year", None),
        ("每月加收2%", "0.02", "month", None),
    ],
    ids=[
        "percent-words",
        "per-day-ten-thousandths",
        "each-day-thousandths",
        "unpaid-base",
        "price-base",
        "yearly",
        "monthly",
    ],
)
def test_parse_rate(text: str, fraction: str, period: str | None, base: str | None) -> None:
    rate = parse_rate(text)
    assert rate is not None
    assert (str(rate.fraction), rate.period, rate.base) == (fraction, period, base)


@pytest.mark.parametrize(
    "slot",
    ["＿＿＿＿", "____", "　　　", "    ", "×××", "【】", "（  ）", "……"],
    ids=[
        "full-width-underscores",
        "underscores",
        "ideographic-spaces",
        "spaces",
        "crosses",
        "brackets",
        "parens",
        "dots",
    ],
)
def test_blanks_whatever_fills_them(slot: str) -> None:
    assert is_blank(slot)
    terms = key_terms(f"月租金为{slot}元，乙方应于每月五日前支付。")
    price = [t for t in terms if t.kind == "price"]
    assert price and price[0].status == BLANK and price[0].value is None


LEASE = """房屋租赁合同
出租人（以下简称甲方）：北京某某置业有限公司
统一社会信用代码：91110108MA01ABCD2X
承租人（以下简称乙方）：李四
甲方将房屋出租给乙方，租赁期限自2026年3月1日至2029年2月28日止。
月租金为人民币壹万元整（含税）。乙方应在本合同签订后五个工作日内支付首期租金的30%。
乙方应向甲方支付定金人民币2,000元。
乙方逾期付款的，每逾期一日，按未付金额的日万分之五支付违约金，违约金最高不超过合同总价的20%。
逾期支付的，按每日千分之三计收滞纳金。
任何一方解除合同应提前三十日书面通知对方。
本合同适用中华人民共和国法律。因本合同引起的争议，由甲方所在地人民法院管辖。
本合同于二〇二六年二月二十日签订，自双方签字之日起生效。
甲 方（盖章）：　　　　　　乙 方（签字）：
"""


def _by_kind(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for term in key_terms(text):
        out.setdefault(term.kind, []).append(term.normalised())
    return out


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("party", ["北京某某置业有限公司 (出租人/甲方)", "李四 (承租人/乙方)"]),
        ("effective_date", ["2026-03-01"]),
        ("expiry_date", ["2029-02-28"]),
        ("price", ["CNY 10000"]),
        ("payment", ["0.3 5 workday after 签订"]),
        ("deposit", ["CNY 2000"]),
        ("penalty", ["0.0005/day"]),
        ("late_interest", ["0.003/day"]),
        ("notice_period", ["30 day"]),
        ("governing_law", ["PRC law"]),
        ("forum", ["court: 甲方所在地人民法院"]),
        ("signing_date", ["2026-02-20"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_lease_reads_as_values(kind: str, expected: list[str]) -> None:
    assert _by_kind(LEASE)[kind] == expected


def test_price_tax_deposit_share_and_penalty_cap() -> None:
    terms = {
        t.kind: t
        for t in key_terms(
            "合同总价为人民币拾万元整（不含税）。买方应支付定金人民币贰万元。违约金为合同总价的百分之十，最高不超过合同总价的百分之三十。"
        )
    }
    assert terms["price"].value.tax_included is False  # type: ignore[union-attr]
    assert str(terms["deposit"].value.share_of_price) == "0.2000"  # type: ignore[union-attr]
    penalty = terms["penalty"].value
    assert (str(penalty.fraction), penalty.base, str(penalty.cap)) == ("0.1", "price", "0.3")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("本合同有效期为自签订之日起三年。", "term", "3 year"),
        ("合同期满后如需续签，乙方应提前一个月书面通知甲方。", "renewal", "by agreement notice 1 month"),
        ("劳动合同期限为三年，其中试用期为二个月。", "probation", "2 month"),
        ("乙方离职后竞业限制期限为两年，甲方按月支付经济补偿。", "non_compete", "2 year"),
        ("因本合同发生的争议，提交上海仲裁委员会仲裁。", "forum", "arbitration: 上海仲裁委员会"),
        ("货款分两期支付：合同签订后十日内支付合同总价的30%。", "payment", "0.3 10 day after 签订"),
        (
            "乙方应于验收合格后15个工作日内付清余款人民币¥100,000.00元。",
            "payment",
            "CNY 100000 15 workday after 验收",
        ),
        ("甲方应提前＿天通知乙方。", "notice_period", BLANK),
        ("因本合同发生的争议，提交＿＿＿＿仲裁委员会仲裁。", "forum", BLANK),
        ("二、合同总金额：＿＿＿＿＿＿", "price", BLANK),
        ("给付定金数额、时间：＿＿＿＿", "deposit", BLANK),
        ("本合同有效期限：从双方签署之日起到＿＿年＿＿月＿＿日止。", "expiry_date", BLANK),
        ("双方于＿＿年＿＿月＿＿日在＿＿市签订。", "signing_date", BLANK),
        ("适用于合同文件的法律是国家的法律、法规。", "governing_law", "PRC law"),
    ],
    ids=[
        "term-from-signing",
        "renewal-notice",
        "probation",
        "non-compete",
        "arbitration",
        "instalment-share",
        "instalment-amount",
        "blank-notice",
        "blank-arbitration",
        "labelled-price-slot",
        "labelled-deposit-slot",
        "expiry-after-an-event",
        "signed-on-at",
        "law-named-later",
    ],
)
def test_clause_terms(text: str, kind: str, expected: str) -> None:
    assert expected in _by_kind(text).get(kind, [])


@pytest.mark.parametrize(
    "text",
    [
        "在试用期的最后一天以书面形式通知对方。",
        "试用期间的工资不低于本单位相同岗位最低档工资。",
        "月租金为＿＿＿元，其中试用期＿＿日内免收。",
    ],
    ids=["last-day-of-a-trial", "wage-during-probation", "days-in-another-clause"],
)
def test_no_probation_length_is_read_where_none_is_agreed(text: str) -> None:
    assert [t.normalised() for t in key_terms(text) if t.kind == "probation" and t.status != BLANK] == []


def test_ninety_six_is_a_year_and_blank_days_are_no_date() -> None:
    kinds = _by_kind("本合同依据96年颁布的规定订立。甲方应在前＿天内交付。")
    assert "term" not in kinds and "signing_date" not in kinds


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("甲　　方：＿＿＿＿＿＿\n乙　　方：＿＿＿＿＿＿\n甲方（盖章）：　　乙方（签章）：", [None, None]),
        (
            "用人单位（甲方）：某某科技有限公司\n劳动者（乙方）：姓名：王五\n甲方应为乙方缴纳社会保险。",
            ["某某科技有限公司", "王五"],
        ),
        ("供方：某某机械股份有限公司供方\n需方：某某贸易有限公司", ["某某机械股份有限公司", "某某贸易有限公司"]),
        ("甲方：姓名＿＿＿＿　地址＿＿＿＿\n乙方：名称＿＿＿＿", [None, None]),
        ("投资方向：新能源\n甲方：某某投资有限公司\n乙方：某某能源有限公司", ["某某投资有限公司", "某某能源有限公司"]),
        (
            "某某软件有限公司（以下简称“许可方”）与某某制造公司（以下简称“被许可方”）达成协议。",
            ["某某软件有限公司", "某某制造公司"],
        ),
    ],
    ids=[
        "spaced-roles-and-signatures",
        "labour-roles-and-form-label",
        "glued-role",
        "form-labels-are-no-names",
        "investment-direction",
        "inline-defined",
    ],
)
def test_parties(text: str, expected: list[str | None]) -> None:
    parties = [t.value for t in key_terms(text) if t.kind == "party"]
    assert all(isinstance(p, Party) for p in parties)
    assert [p.name for p in parties] == expected  # type: ignore[union-attr]


def test_a_party_keeps_its_credit_code() -> None:
    party = next(t.value for t in key_terms(LEASE) if t.kind == "party")
    assert isinstance(party, Party) and party.identifier == "91110108MA01ABCD2X"


# Parties counted by hand from each public contract's opening lines and signature block.
HAND_COUNTED_PARTIES = {
    "td_dichanht10": 2, "td_jianzhu13": 2, "td_jisuanji02": 2, "td_yunshu13": 2, "td_baoguanht": 2,
    "td_zulinght09": 3, "td_jishuzr01": 2, "td_danbaoht10": 2, "td_jiagonght01": 2, "td_jinkouht03": 2,
    "td_jishuzr12": 2, "td_jisuanji01": 2, "td_jianzhu23": 2, "td_baoxianht34": 2, "td_laodonght10": 2,
    "td_lianyinht09": 1, "td_zulinght01": 2, "td_jishuzr15": 2, "td_tudiht03": 2, "td_danbaoht04": 3,
    "lrz0212_ruanjian_hezuo": 2, "hjzzn_menmianzulin": 2, "ts_bj_jiapei": 2, "ts_bj_kejipeixun": 2,
}  # fmt: skip


def test_party_groups_per_public_contract() -> None:
    with open(shared_file("contracts/public.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    # As sent and as the legal desk reads it (normalised: spaces collapsed, hard-wrapped lines joined).
    for read in (str, lambda text: normalize(text).text):
        counts = {row["id"]: sum(t.kind == "party" for t in key_terms(read(row["text"]))) for row in rows}
        assert max(counts.values()) <= 4
        assert statistics.median(counts.values()) <= 2.5
        agree = sum(counts[doc] == n for doc, n in HAND_COUNTED_PARTIES.items())
        assert agree / len(HAND_COUNTED_PARTIES) >= 0.9


def test_the_key_terms_import_nothing_of_the_entities() -> None:
    """rules.entities reads parties and dates from rules.contract_terms; the reverse import would be a cycle."""
    import subprocess
    import sys

    code = "import sys, rules.contract_terms; print(sorted(m for m in sys.modules if m.startswith('rules.entities')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[]"
