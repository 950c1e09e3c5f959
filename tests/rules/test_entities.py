"""Entity extraction over contract and ticket wording: labels, values, validation and overlaps."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from rules.entities import ENTITY_PACK, Entity, extract_entities, pipeline, resolve_overlaps
from rules.entities.validators import is_resident_id, luhn_valid, resident_id_check_char


def valid_resident_id(first17: str) -> str:
    """Return first17 completed with its GB 11643 check character."""
    return first17 + resident_id_check_char(first17)


def invalid_resident_id(first17: str) -> str:
    """Return first17 completed with a wrong check character."""
    right = resident_id_check_char(first17)
    return first17 + ("0" if right != "0" else "1")


def luhn_card(first: str) -> str:
    """Return first completed with the Luhn check digit."""
    return next(first + d for d in "0123456789" if luhn_valid(first + d))


def non_luhn_card(first: str) -> str:
    """Return first completed with a digit that fails the Luhn check."""
    return next(first + d for d in "0123456789" if not luhn_valid(first + d))


def labelled(text: str) -> list[tuple[str, str]]:
    """Return (label, text) pairs of the entities found in text."""
    return [(entity.label, entity.text) for entity in extract_entities(text)]


CONTRACT = (
    "甲方：北京某某科技有限公司\n乙方（承租方）：张三\n"
    "合同总价款为人民币壹佰贰拾万元整（¥1,200,000.00），乙方应于2023年5月1日前付清。"
)

FOUND = [
    (CONTRACT, ("PARTY", "北京某某科技有限公司"), "named-party-after-colon"),
    (CONTRACT, ("PARTY", "张三"), "named-party-after-bracketed-role"),
    (CONTRACT, ("MONEY", "人民币壹佰贰拾万元整"), "money-upper-case"),
    (CONTRACT, ("MONEY", "¥1,200,000.00"), "money-arabic"),
    (CONTRACT, ("DATE", "2023年5月1日"), "date-arabic"),
    ("租期自二〇二三年五月一日起", ("DATE", "二〇二三年五月一日"), "date-chinese"),
    ("签订日期：2023-05-01", ("DATE", "2023-05-01"), "date-iso"),
    ("于2023/5/1交付", ("DATE", "2023/5/1"), "date-slashes"),
    ("乙方应于每月15日前支付租金", ("DATE", "每月15日"), "date-recurring"),
    ("甲方应于验收合格次日付款", ("DATE", "次日"), "date-relative"),
    ("租赁期限为三年", ("DURATION", "三年"), "duration-chinese-years"),
    ("试用期24个月", ("DURATION", "24个月"), "duration-months"),
    ("收到发票后30日内付款", ("DURATION", "30日内"), "duration-within"),
    ("应在十五个工作日内答复", ("DURATION", "十五个工作日内"), "duration-working-days"),
    ("违约金为合同总价款的百分之二十", ("PERCENT", "百分之二十"), "percent-chinese"),
    ("年利率4.35%", ("PERCENT", "4.35%"), "percent-arabic"),
    ("用人单位应当为劳动者缴纳社会保险", ("PARTY", "劳动者"), "party-role-labour"),
    ("我是A市A3区居民，电话13812345678", ("REGION", "A3区"), "region-anonymised"),
    ("我是A市A3区居民，电话13812345678", ("PHONE", "13812345678"), "phone-mobile"),
    ("联系电话：138-1234-5678", ("PHONE", "138-1234-5678"), "phone-mobile-dashes"),
    ("办公电话010-12345678转8", ("PHONE", "010-12345678"), "phone-landline"),
    ("客服热线400-800-1234", ("PHONE", "400-800-1234"), "phone-400"),
    ("已拨打12345反映", ("PHONE", "12345"), "phone-hotline"),
    ("河北省石家庄市长安区", ("REGION", "长安区"), "region-chain"),
    ("邮箱：zhang.san@example.com", ("EMAIL", "zhang.san@example.com"), "email"),
    ("注册地址：北京市海淀区中关村大街1号", ("ADDRESS", "北京市海淀区中关村大街1号"), "address-cued"),
    ("家住A市A3区幸福小区3栋2单元301室", ("ADDRESS", "A市A3区幸福小区3栋2单元301室"), "address-units"),
]


@pytest.mark.parametrize(("text", "expected"), [f[:2] for f in FOUND], ids=[f[2] for f in FOUND])
def test_extract_entities_finds(text: str, expected: tuple[str, str]) -> None:
    assert expected in labelled(text)


def test_valid_resident_id_is_pii() -> None:
    number = valid_resident_id("11010519900307123")
    (entity,) = [e for e in extract_entities(f"身份证号：{number}，") if e.label == "ID_NUMBER"]
    assert entity.is_pii and entity.value == number and entity.rule_id == "id.resident18"


def test_resident_id_with_x_check_character() -> None:
    candidates = (f"44030519850101{sequence:03d}" for sequence in range(1000))
    first17 = next(c for c in candidates if resident_id_check_char(c) == "X")
    assert is_resident_id(first17 + "X") and is_resident_id(first17 + "x")
    assert ("ID_NUMBER", first17 + "X") in labelled(f"身份证{first17}X。")


REJECTED_IDS = [
    (invalid_resident_id("11010519900307123"), "wrong-checksum"),
    (valid_resident_id("11010519901307123")[:-1] + "0", "month-13"),
    (valid_resident_id("99010519900307123"), "unknown-province"),
    (valid_resident_id("11010521990307123"), "born-in-the-future"),
]


@pytest.mark.parametrize("number", [r[0] for r in REJECTED_IDS], ids=[r[1] for r in REJECTED_IDS])
def test_invalid_resident_id_is_not_an_id(number: str) -> None:
    assert all(e.label != "ID_NUMBER" for e in extract_entities(f"身份证号：{number}"))


def test_luhn_valid_card_after_account_cue() -> None:
    card = luhn_card("622202123456789012")
    grouped = " ".join(card[i : i + 4] for i in range(0, len(card), 4))
    assert ("BANK_CARD", grouped) in labelled(f"开户行：某某银行，账号：{grouped}。")
    assert ("BANK_CARD", card) in labelled(f"卡号{card}")


def test_luhn_invalid_card_is_not_a_card() -> None:
    card = non_luhn_card("622202123456789012")
    assert all(e.label != "BANK_CARD" for e in extract_entities(f"卡号{card}"))


NOT_FOUND = [
    ("本合同第三条约定，2023年签订", "MONEY", "dates-and-clauses-are-not-money"),
    ("合同金额13800000000元", "PHONE", "phone-like-amount-is-money"),
    ("总价¥13812345678.00", "PHONE", "phone-like-amount-after-yen"),
    ("请选择购买方式", "PARTY", "role-inside-another-word"),
    ("甲方（盖章）：＿＿＿＿＿＿", "PERSON", "blank-signature-line"),
    ("2023-13-45", "DATE", "impossible-iso-date"),
    ("订单号1381234567890123", "PHONE", "mobile-prefix-inside-longer-number"),
]


@pytest.mark.parametrize(("text", "label"), [n[:2] for n in NOT_FOUND], ids=[n[2] for n in NOT_FOUND])
def test_extract_entities_does_not_find(text: str, label: str) -> None:
    assert all(e.label != label for e in extract_entities(text))


def test_blank_signature_line_names_no_party() -> None:
    assert [e.rule_id for e in extract_entities("甲方（盖章）：＿＿＿＿") if e.label == "PARTY"] == ["party.role"]


def test_money_value_carries_currency() -> None:
    (money,) = [e for e in extract_entities("定金人民币伍万元整") if e.label == "MONEY"]
    assert money.value == "CNY 50000"


def test_dates_have_iso_values() -> None:
    values = {e.text: e.value for e in extract_entities("自二〇二三年五月一日至2024年4月30日") if e.label == "DATE"}
    assert values == {"二〇二三年五月一日": "2023-05-01", "2024年4月30日": "2024-04-30"}


def test_date_beats_duration_inside_it() -> None:
    assert labelled("2023年5月1日") == [("DATE", "2023年5月1日")]


def test_entities_are_ordered_non_overlapping_and_match_the_text() -> None:
    text = CONTRACT + "我是A市A3区居民，电话13812345678，家住A市A3区幸福小区3栋。"
    entities = extract_entities(text)
    assert entities == sorted(entities, key=lambda e: (e.start, e.end))
    for left, right in itertools.pairwise(entities):
        assert left.end <= right.start
    assert all(text[e.start : e.end] == e.text for e in entities)


def test_resolve_overlaps_prefers_longest_then_most_specific() -> None:
    phone = Entity("PHONE", 0, 11, "x" * 11, None, True, "phone.mobile")
    money = Entity("MONEY", 0, 12, "x" * 12, None, False, "money")
    card = Entity("BANK_CARD", 20, 38, "x" * 18, None, True, "bank_card.luhn")
    resident = Entity("ID_NUMBER", 20, 38, "x" * 18, None, True, "id.resident18")
    assert resolve_overlaps([phone, money, card, resident], 40) == [money, resident]


def test_rule_pack_has_id_and_version() -> None:
    assert ENTITY_PACK[0] == "entities" and ENTITY_PACK[1].count(".") == 2


def test_empty_and_long_text(monkeypatch: pytest.MonkeyPatch) -> None:
    assert extract_entities("") == []
    monkeypatch.setattr(pipeline, "MAX_CHUNK_CHARS", 1000)  # long texts go through spaCy in pieces
    text = "电话13812345678。\n" * 500
    entities = extract_entities(text)
    assert len(entities) == 500
    assert all(text[e.start : e.end] == "13812345678" for e in entities)


def test_importing_rules_does_not_load_spacy() -> None:
    code = "import sys, rules.entities, rules.pii, rules.amounts; print('spacy' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
