"""The masking functions the portal and the API share (`contracts.tenancy.personal_data`), over stored results."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.models import ApiKey
from contracts.tenancy.personal_data import (
    MASK,
    caller_sees_personal_data,
    finding_masked,
    preview_masked,
    result_data_masked,
    text_masked,
)

TEXT = "甲方：张伟，身份证号11010519491231002X。张伟应于2024年3月1日前支付5000元。"
NAME_AT = [TEXT.index("张伟"), TEXT.index("张伟") + 2]
PERSON: dict[str, Any] = {
    "id": "F1",
    "kind": "entity",
    "label": "PARTY",
    "source": "rule",
    "is_pii": True,
    "text": "张伟",
    "value": "张伟",
    "span": NAME_AT,
    "mentions": [{"span": NAME_AT, "text": "张伟", "rule_id": "party.defined"}],  # the second mention was missed
}
AMOUNT: dict[str, Any] = {"id": "F2", "kind": "entity", "label": "MONEY", "is_pii": False, "text": "5000元"}
CLAUSE: dict[str, Any] = {"id": "F3", "kind": "clause", "label": "付款", "evidence": TEXT[13:], "matched": "支付"}


def test_the_text_keeps_its_length_and_hides_every_place_a_personal_finding_names() -> None:
    masked = text_masked(TEXT, [PERSON, AMOUNT, CLAUSE])
    assert len(masked) == len(TEXT)
    assert "张伟" not in masked and "11010519491231002X" not in masked
    assert "5000元" in masked and "支付" in masked


def test_a_result_hides_what_a_personal_entity_says_and_masks_every_quote() -> None:
    data: dict[str, Any] = {
        "kind": "contract",
        "findings": [PERSON, AMOUNT, CLAUSE],
        "suggested_response": "请张伟核对13812345678。",
    }
    masked = result_data_masked(data)
    person, amount, clause = masked["findings"]
    assert person["text"] == person["value"] == MASK * 2 and person["mentions"][0]["text"] == MASK * 2
    assert person["span"] == NAME_AT and person["mentions"][0]["rule_id"] == "party.defined"  # where, not what
    assert amount == AMOUNT
    assert "张伟" not in clause["evidence"] and "11010519491231002X" not in clause["evidence"]
    assert "张伟" not in masked["suggested_response"] and "13812345678" not in masked["suggested_response"]
    assert data["findings"][0]["text"] == "张伟"  # the stored data is left as it is


def test_a_correction_keeps_the_previous_values_of_personal_data_hidden() -> None:
    corrected = {**PERSON, "is_pii": False, "text": "某公司", "original": {"is_pii": True, "text": "张伟"}}
    masked = finding_masked(corrected)
    assert masked["original"]["text"] == MASK * 2
    assert masked["text"] == "某公司"  # the reviewer said it is no personal data
    renamed = finding_masked({**PERSON, "text": "张伟伟", "original": {"text": "张伟"}})
    assert renamed["original"]["text"] == MASK * 2 and renamed["text"] == MASK * 3


@pytest.mark.parametrize(
    "evidence",
    [[{"term": "张伟", "span": NAME_AT}], "张伟"],
    ids=["evidence-list", "evidence-quote"],
)
def test_a_personal_entitys_evidence_is_hidden_in_any_shape(evidence: Any) -> None:
    masked = finding_masked({**PERSON, "evidence": evidence})
    assert "张伟" not in str(masked["evidence"])


def test_a_preview_is_masked_like_the_whole_text() -> None:
    assert preview_masked(TEXT, [PERSON], 12) == text_masked(TEXT, [PERSON])[:12]


@pytest.mark.django_db
def test_an_api_key_sees_personal_data_of_its_own_organisation_only(actors: Any) -> None:
    key, _raw = ApiKey.issue(organisation=actors.acme, name="acme crm")
    assert caller_sees_personal_data(organisation=actors.acme, api_key=key)
    assert not caller_sees_personal_data(organisation=actors.globex, api_key=key)
    assert caller_sees_personal_data(organisation=actors.acme, user=actors.rita)
    assert not caller_sees_personal_data(organisation=actors.acme, user=actors.alice)
    assert not caller_sees_personal_data(organisation=actors.acme, user=actors.oscar)  # Globex's admin
    assert caller_sees_personal_data(organisation=actors.globex, user=actors.oscar)
