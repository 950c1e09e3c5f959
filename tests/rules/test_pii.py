"""PII masking keeps offsets: every masked text is as long as the original and never raises."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.entities.validators import luhn_valid, resident_id_check_char
from rules.pii import mask_pii, pii_spans

RESIDENT_ID = "11010519900307123" + resident_id_check_char("11010519900307123")
CARD = next(f"622202123456789012{d}" for d in "0123456789" if luhn_valid(f"622202123456789012{d}"))

MASKED = [
    ("电话13812345678", "电话138****5678", "mobile"),
    ("手机：138-1234-5678", "手机：138-****-5678", "mobile-with-dashes"),
    ("+86 13912345678", "+86 139****5678", "mobile-with-country-code"),
    ("座机010-12345678", "座机010-****5678", "landline"),
    (f"身份证号{RESIDENT_ID}", f"身份证号{RESIDENT_ID[:6]}********{RESIDENT_ID[-4:]}", "resident-id"),
    (f"账号：{CARD}", f"账号：{'*' * (len(CARD) - 4)}{CARD[-4:]}", "bank-card"),
    ("邮箱zhangsan@example.com", "邮箱z*******@example.com", "email"),
    ("投诉人：王小明，电话", "投诉人：王**，电话", "complainant-name"),
    ("联系人张先生，", "联系人张**，", "contact-title"),
    ("家住A市A3区幸福小区3栋2单元301室。", "家住A市A3区" + "*" * 13 + "。", "home-address"),
]


@pytest.mark.parametrize(("text", "masked"), [m[:2] for m in MASKED], ids=[m[2] for m in MASKED])
def test_mask_pii(text: str, masked: str) -> None:
    assert mask_pii(text) == masked


UNCHANGED = [
    ("我是A市A3区居民，拨打12345反映噪音扰民", "hotline-and-anonymised-regions"),
    ("客服电话400-800-1234", "service-number"),
    ("合同总价款为人民币壹佰贰拾万元整（¥1,200,000.00）", "contract-amount"),
    ("合同金额13800000000元", "phone-like-amount"),
    ("身份证号110105199003071230", "checksum-invalid-id"),
    (f"卡号{CARD[:-1]}{(int(CARD[-1]) + 1) % 10}", "luhn-invalid-card"),
    ("注册地址：北京市海淀区中关村大街1号", "company-seat-is-not-personal"),
    ("本合同自2023年5月1日起生效", "date"),
]


@pytest.mark.parametrize("text", [u[0] for u in UNCHANGED], ids=[u[1] for u in UNCHANGED])
def test_mask_pii_leaves_non_personal_text(text: str) -> None:
    assert mask_pii(text) == text


def test_ticket_masks_every_identifier_and_keeps_offsets() -> None:
    text = f"我是A市A3区居民，电话13812345678，身份证{RESIDENT_ID}，邮箱li@example.cn，请尽快处理。"
    masked = mask_pii(text)
    assert len(masked) == len(text)
    assert "13812345678" not in masked and RESIDENT_ID not in masked and "li@" not in masked
    assert masked.endswith("请尽快处理。") and masked.startswith("我是A市A3区居民")
    assert [span.label for span in pii_spans(text)] == ["PHONE", "ID_NUMBER", "EMAIL"]


def test_pii_spans_are_all_personal() -> None:
    assert all(span.is_pii for span in pii_spans(f"电话13812345678，热线12345，{RESIDENT_ID}"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789１３８ -+()（）@.xX元¥市区号路联系人姓名：张家住Aa"), max_size=120))
def test_mask_pii_on_identifier_shaped_noise_keeps_length(text: str) -> None:
    assert len(mask_pii(text)) == len(text)


@given(st.text(max_size=300))
def test_mask_pii_on_arbitrary_text_keeps_length(text: str) -> None:
    masked = mask_pii(text)
    assert len(masked) == len(text)
    assert all(a == b or b == "*" for a, b in zip(text, masked, strict=True))


def test_mask_pii_is_fast_on_long_text() -> None:
    text = "我是A市A3区居民，电话13812345678，反映小区噪音问题，希望尽快处理。" * 3000
    started = time.perf_counter()
    masked = mask_pii(text)
    assert time.perf_counter() - started < 2.0  # generous: it runs in well under 0.1 s here
    assert masked.count("138****5678") == 3000
