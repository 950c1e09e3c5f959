"""Clause matcher: real clause wording per type, stipulated vs negated vs referenced, headings, slots."""

from __future__ import annotations

import pytest

from rules.clauses import NEGATED, REFERENCED, STIPULATED, clause_matches, clause_presence, load_pack
from rules.evaluation.clauses import evaluate_clauses
from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file

LABELS = [
    "违约金/违约责任", "不可抗力", "保密", "争议解决", "管辖/适用法律", "合同解除/终止", "付款/结算",
    "知识产权", "责任限制", "竞业限制", "定金", "验收", "合同期限", "通知/送达",
]  # fmt: skip

STIPULATED_CASES = [
    ("违约金/违约责任", "第九条 违约责任\n乙方逾期交货的，每逾期一日，应按合同总价的千分之三向甲方支付违约金。"),
    ("违约金/违约责任", "甲方逾期付款的，应按未付金额每日万分之五向乙方支付滞纳金。"),
    ("不可抗力", "因地震、台风等不可抗力致使合同不能履行的，遭受不可抗力的一方应在十五日内通知对方。"),
    ("保密", "双方对在履行本合同过程中知悉的对方商业秘密负有保密义务，未经书面同意不得向第三方披露。"),
    ("争议解决", "因本合同引起的争议，双方协商不成的，任何一方均可向有管辖权的人民法院提起诉讼。"),
    ("争议解决", "凡因本合同发生的争议，双方同意提交仲裁解决。"),
    ("管辖/适用法律", "本合同的订立、效力、解释及争议的解决均适用中华人民共和国法律。"),
    ("管辖/适用法律", "双方因本合同发生纠纷，由甲方所在地人民法院管辖。"),
    ("管辖/适用法律", "争议提交中国国际经济贸易仲裁委员会，按照申请仲裁时该会现行有效的仲裁规则进行仲裁。"),
    ("合同解除/终止", "乙方连续三个月未支付租金的，甲方有权解除本合同并收回房屋。"),
    ("付款/结算", "第四条 付款方式\n甲方应于验收合格后十个工作日内以银行转账方式向乙方支付合同价款。"),
    ("知识产权", "乙方在履行本合同中完成的软件著作权及相关知识产权归甲方所有。"),
    ("责任限制", "任何一方在本合同项下的累计赔偿责任不超过合同总价的百分之二十。"),
    ("责任限制", "对于间接损失和利润损失，乙方不承担任何责任。"),
    ("竞业限制", "乙方离职后二年内不得到与甲方生产同类产品的其他用人单位任职，即履行竞业限制义务。"),
    ("竞业限制", "租赁期内出租方不得自营与承租方经营范围相同的产品或服务。"),
    ("定金", "乙方应于本合同签订之日起三日内向甲方支付定金人民币五万元。"),
    ("验收", "设备到货后，甲方应在七日内组织验收，验收合格后签署验收报告。"),
    ("合同期限", "本合同有效期为三年，自2024年1月1日起至2026年12月31日止。"),
    ("合同期限", "租赁期限自＿＿年＿＿月＿＿日至＿＿年＿＿月＿＿日止。"),
    ("通知/送达", "本合同项下的所有通知均应以书面形式送达对方在本合同首页载明的地址。"),
]


@pytest.mark.parametrize(
    ("label", "text"), STIPULATED_CASES, ids=[f"{c[0]}-{n}" for n, c in enumerate(STIPULATED_CASES)]
)
def test_stipulated_clause_is_present(label: str, text: str) -> None:
    finding = clause_presence(text)[label]
    assert finding is not None
    assert finding.status == STIPULATED
    assert finding.start <= finding.match_start < finding.end <= len(text)
    assert finding.evidence in text
    assert finding.rule_id.startswith("clause.")
    assert finding.pack_version == load_pack().version


NEGATED_CASES = [
    ("定金", "本合同不设定金。"),
    ("竞业限制", "双方不约定竞业限制。"),
    ("保密", "本项目不涉及保密事项。"),
    ("违约金/违约责任", "双方不约定违约金。"),
    ("知识产权", "本合同不涉及知识产权转让。"),
    ("通知/送达", "本合同不适用电子送达。"),
    ("合同解除/终止", "合同签订后，任何一方不得擅自解除合同。"),
]


@pytest.mark.parametrize(("label", "text"), NEGATED_CASES, ids=[c[0] for c in NEGATED_CASES])
def test_negated_clause_is_reported_but_not_present(label: str, text: str) -> None:
    assert clause_presence(text)[label] is None
    statuses = {f.status for f in clause_matches(text) if f.label == label}
    assert NEGATED in statuses


REFERENCED_CASES = [
    ("违约金/违约责任", "乙方逾期交付的，按照第十条违约金的约定处理。"),
    ("保密", "双方的保密义务详见保密协议。"),
    ("保密", "乙方违反本合同约定的保守商业秘密事项的，应赔偿甲方损失。"),
    ("不可抗力", "不可抗力的处理按照第十二条执行。"),
    ("竞业限制", "竞业限制事项由双方另行签订竞业限制协议。"),
    ("知识产权", "知识产权归属详见附件三。"),
]


@pytest.mark.parametrize(("label", "text"), REFERENCED_CASES, ids=[c[0] for c in REFERENCED_CASES])
def test_referenced_clause_is_weaker_than_stipulated(label: str, text: str) -> None:
    findings = [f for f in clause_matches(text) if f.label == label]
    assert findings and all(f.status == REFERENCED for f in findings)
    assert clause_presence(text)[label] is None
    assert max(f.confidence for f in findings) < 0.6


def test_heading_slot_counts_for_ordinary_types() -> None:
    text = "第七条　验收方法＿＿＿＿＿＿\n第八条　结算方式及期限：＿＿＿＿＿＿＿＿\n第九条　保管期限＿＿＿＿"
    presence = clause_presence(text)
    assert presence["验收"] is not None and presence["验收"].in_heading
    assert presence["付款/结算"] is not None
    assert presence["合同期限"] is not None


def test_bare_penalty_and_dispute_slots_do_not_count() -> None:
    text = "第十条　违约责任＿＿＿＿＿＿＿\n第十一条　争议的解决方式＿＿＿＿＿＿"
    presence = clause_presence(text)
    assert presence["违约金/违约责任"] is None
    assert presence["争议解决"] is None


def test_heading_article_span_covers_its_body() -> None:
    text = "第十条　违约责任\n一、乙方逾期交货的，应按货款的百分之五支付违约金。\n第十一条　其他"
    finding = clause_presence(text)["违约金/违约责任"]
    assert finding is not None and finding.in_heading
    assert text[finding.start : finding.end].startswith("第十条")
    assert "违约金" in text[finding.start : finding.end]
    assert "第十一条" not in text[finding.start : finding.end]


@pytest.mark.parametrize(
    "text",
    [
        "协商不成的，双方同意由＿＿＿＿仲裁委员会仲裁。",
        "因本合同发生争议，协商不成的，可以向人民法院起诉。",
        "协商不成的，可直接向劳动争议仲裁委员会申请仲裁。",
    ],
    ids=["blank-commission", "generic-court", "generic-labour-commission"],
)
def test_unnamed_forum_is_dispute_resolution_but_not_jurisdiction(text: str) -> None:
    presence = clause_presence(text)
    assert presence["争议解决"] is not None
    assert presence["管辖/适用法律"] is None


def test_negotiation_alone_is_not_dispute_resolution() -> None:
    assert clause_presence("本合同未尽事宜，由双方协商解决。")["争议解决"] is None


@pytest.mark.parametrize("word", ["订金", "押金", "保证金", "预定金"])
def test_only_dingjin_counts_as_deposit(word: str) -> None:
    assert clause_presence(f"乙方应于签约时向甲方支付{word}人民币一万元。")["定金"] is None


def test_drafting_guidance_in_brackets_never_counts() -> None:
    text = "第十一条　其他：＿＿＿＿＿＿（如：根据国家有关规定，定作方可向承揽方交付定金。定金数额由双方协商确定。）"
    assert clause_presence(text)["定金"] is None


def test_instructions_section_never_counts() -> None:
    text = "第一条　标的\n甲方向乙方购买设备。\n\n填写说明\n\n一、如双方约定定金的，应写明定金数额。"
    assert clause_presence(text)["定金"] is None


def test_force_majeure_excuse_alone_is_not_a_liability_cap() -> None:
    text = "因不可抗力原因导致该房屋毁损和造成损失的，双方互不承担责任。"
    presence = clause_presence(text)
    assert presence["不可抗力"] is not None
    assert presence["责任限制"] is None


def test_ad_hoc_notice_is_not_a_notice_clause() -> None:
    assert clause_presence("甲方解除合同的，应提前三十日以书面形式通知乙方。")["通知/送达"] is None


def test_validity_reference_and_schedule_are_not_a_term() -> None:
    assert clause_presence("在本合同有效期内，甲方不得转让质物。")["合同期限"] is None
    assert clause_presence("本合同自签字之日起生效，合同履行完毕即失效。")["合同期限"] is None


def test_full_width_and_half_width_forms_match_alike() -> None:
    raw = "第七条　验收方法：＿＿＿＿＿＿\n第八条　付款方式：＿＿＿＿"
    normalized = "第七条 验收方法:______\n第八条 付款方式:____"
    assert {k for k, v in clause_presence(raw).items() if v} == {k for k, v in clause_presence(normalized).items() if v}


def test_every_label_and_version_come_from_the_pack() -> None:
    pack = load_pack()
    assert list(pack.clauses) == LABELS
    assert pack.version == "2026.12.2"
    assert pack.clauses["违约金/违约责任"].cuad == "Liquidated Damages"
    assert pack.clauses["管辖/适用法律"].cuad == "Governing Law"


def test_empty_text_has_no_findings() -> None:
    assert clause_matches("") == []
    assert all(v is None for v in clause_presence("").values())


def test_public_contracts_meet_the_bar() -> None:
    report = evaluate_clauses(jsonl_rows(shared_file("contracts/public.jsonl")))
    assert report["n_docs"] == 24
    assert report["micro_f1"] >= 0.90
    assert report["span_hit_rate"] >= 0.90
    assert set(report["per_clause"]) == set(LABELS)
