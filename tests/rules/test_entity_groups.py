"""Entity groups: parties resolved to their defined names, values de-duplicated, every mention kept."""

from __future__ import annotations

from rules.entities import EntityGroup, entity_groups, extract_entities
from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file

CONTRACT = (
    "委托方（以下简称甲方）：华东精密仪器有限公司\n"
    "受托方（以下简称乙方）：北辰软件技术有限公司\n"
    "一、甲方委托乙方开发库存管理系统，乙方应于2024年3月1日前交付。\n"
    "二、合同总价为人民币伍万元整（¥50000元），甲方应在验收合格后30日内付清。\n"
    "三、乙方逾期交付的，每日按合同总价的0.5%向甲方支付违约金，违约金总额不超过50000元。\n"
    "四、本合同自2024年3月1日起生效，有效期三年。\n"
    "甲方（盖章）：华东精密仪器有限公司\n"
    "乙方（盖章）：北辰软件技术有限公司\n"
)


def _groups(text: str) -> list[EntityGroup]:
    return entity_groups(text, extract_entities(text))


def _party(groups: list[EntityGroup], name: str) -> EntityGroup:
    return next(group for group in groups if group.label == "PARTY" and group.text == name)


def test_roles_resolve_to_the_name_they_are_defined_as() -> None:
    groups = _groups(CONTRACT)
    parties = [group for group in groups if group.label == "PARTY"]
    assert [group.text for group in parties] == ["华东精密仪器有限公司", "北辰软件技术有限公司"]
    client = _party(groups, "华东精密仪器有限公司")
    assert client.roles == ("委托方", "甲方")
    assert client.definition is not None and CONTRACT[client.definition.start :].startswith("华东精密")
    role_mentions = [m for m in client.mentions if m.text == "甲方"]
    assert len(role_mentions) == CONTRACT.count("甲方"), "every 甲方 is a mention of the client"
    assert sum(m.text == "华东精密仪器有限公司" for m in client.mentions) == 2, "the signature block too"
    assert all(CONTRACT[m.start : m.end] == m.text for m in client.mentions)
    assert [m.start for m in client.mentions] == sorted(m.start for m in client.mentions)
    assert groups[: len(parties)] == parties, "parties come first"


def test_an_undefined_role_is_a_party_of_its_own() -> None:
    text = "甲方应于每月5日前支付租金。乙方应按时交付房屋。甲方逾期付款的，应支付违约金。"
    parties = [group for group in _groups(text) if group.label == "PARTY"]
    assert [(group.key, group.roles, len(group.mentions)) for group in parties] == [
        ("甲方", ("甲方",), 2),
        ("乙方", ("乙方",), 1),
    ]
    assert all(group.definition is None for group in parties)


def test_amounts_and_dates_group_by_their_value_however_they_are_written() -> None:
    groups = _groups(CONTRACT)
    money = [group for group in groups if group.label == "MONEY"]
    fifty_thousand = [group for group in money if group.value == "CNY 50000"]
    assert len(fifty_thousand) == 1
    assert {m.text for m in fifty_thousand[0].mentions} == {"人民币伍万元整", "¥50000元", "50000元"}
    dates = [group for group in groups if group.label == "DATE" and group.value == "2024-03-01"]
    assert len(dates) == 1 and len(dates[0].mentions) == 2
    keys = [(group.label, group.key) for group in groups]
    assert len(keys) == len(set(keys)), "one group per label and value"


def test_every_entity_is_in_exactly_one_group() -> None:
    for row in list(jsonl_rows(shared_file("contracts/public.jsonl")))[:6]:
        entities = extract_entities(row["text"])
        groups = entity_groups(row["text"], entities)
        mentions = [m for group in groups for m in group.mentions]
        assert sorted(mentions, key=lambda e: (e.start, e.end)) == sorted(entities, key=lambda e: (e.start, e.end))


def test_personal_data_marks_its_group() -> None:
    text = "联系人：张伟，电话13912345678；如联系不上，请再拨13912345678。"
    phones = [group for group in _groups(text) if group.label == "PHONE"]
    assert len(phones) == 1 and len(phones[0].mentions) == 2 and phones[0].is_pii
