"""Party entity groups follow the parties a contract defines (`rules.contract_terms.parties`), blank names included."""

from __future__ import annotations

import pytest

from rules.entities import entity_groups, extract_entities
from rules.normalize import normalize


def _parties(text: str) -> list[tuple[str, ...]]:
    normalized = normalize(text).text
    groups = entity_groups(normalized, extract_entities(normalized))
    return [tuple(sorted(g.roles)) for g in groups if g.label == "PARTY"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "委托方（以下简称甲方）：＿＿＿＿＿＿\n受托方（以下简称乙方）：＿＿＿＿＿＿\n甲方应按时付款，乙方应按约提供服务。",
            [("委托方", "甲方"), ("乙方", "受托方")],
        ),
        (
            "甲　　　方：＿＿＿＿＿＿\n乙　　　方：＿＿＿＿＿＿\n甲方应按月支付乙方劳动报酬。\n"
            "甲 方（盖章）：　　乙 方（签字）：",
            [("甲方",), ("乙方",)],
        ),
        (
            "出租方：(甲方)\n承租方：(乙方)\n甲方将房屋出租给乙方。",
            [("出租方", "甲方"), ("乙方", "承租方")],
        ),
        (
            "甲方：某某投资有限公司\n乙方：某某能源有限公司\n投资方向：新能源。乙方应向甲方提供方案。",
            [("甲方",), ("乙方",)],
        ),
    ],
    ids=[
        "blank-names-with-aliases",
        "spaced-roles-and-signatures",
        "role-in-brackets-after-colon",
        "investment-direction",
    ],
)
def test_one_group_per_defined_party(text: str, expected: list[tuple[str, ...]]) -> None:
    assert sorted(_parties(text)) == sorted(expected)


def test_a_seal_printed_after_the_role_is_no_name() -> None:
    normalized = normalize("甲方：公章　　　乙方：公章\n法定代表人：签字").text
    names = [g.text for g in entity_groups(normalized, extract_entities(normalized)) if g.label == "PARTY"]
    assert "公章" not in names


def test_the_next_field_s_label_is_no_person() -> None:
    normalized = normalize("联系人：手机13812345678").text
    people = [e.text for e in extract_entities(normalized) if e.label == "PERSON"]
    assert "手机" not in people


def test_a_name_joined_to_the_next_definition_by_a_lost_line_break_stays_two_parties() -> None:
    # Normalisation joins a wrapped line, so 有限公司 and 受托方（以下简称乙方）： meet with no break between them.
    text = (
        "委托方（以下简称甲方）：东岳精密机械有限公司\n受托方（以下简称乙方）：西江数据服务有限公司\n"
        "第一条 保密\n乙方为甲方保密。"
    )
    normalized = normalize(text).text
    groups = [g for g in entity_groups(normalized, extract_entities(normalized)) if g.label == "PARTY"]
    assert [(g.text, tuple(sorted(g.roles))) for g in groups] == [
        ("东岳精密机械有限公司", ("委托方", "甲方")),
        ("西江数据服务有限公司", ("乙方", "受托方")),
    ]
