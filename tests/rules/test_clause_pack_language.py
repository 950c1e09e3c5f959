"""The clause pack is written from contract language: short terms, a reason for each long one, unseen wording found."""

from __future__ import annotations

import json

import pytest

from rules.clauses import STIPULATED, clause_presence, load_pack
from rules.clauses.pack import PACK_PATH, pack_from_dict
from tests.rules.pack_terms import literal_pieces, pack_json
from tests.shared_data import SHARED_DATA, shared_file

_LONG = 5  # pack_overlap's shortest suspect term
_ROW_FIELDS = ("text", "source", "input", "reference")


def _pack() -> dict:
    return pack_json(PACK_PATH)


def _long_pieces(pack: dict) -> set[str]:
    """The Chinese runs of five or more characters that the pack's strings hold once regex syntax is split off."""
    return literal_pieces(pack, _LONG)


def _evaluation_rows() -> list[str]:
    """The text of every evaluation row in the shared data (training corpora excluded), as pack_overlap reads it."""
    shared_file("contracts/public.jsonl")  # a clear error when the shared data is missing
    texts = []
    for path in sorted(SHARED_DATA.rglob("*.jsonl")):
        if "train" in path.relative_to(SHARED_DATA).parts:
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            texts.append(" ".join(str(row[key]) for key in _ROW_FIELDS if isinstance(row.get(key), str)))
    return texts


def test_every_long_piece_has_a_one_line_reason() -> None:
    pack = _pack()
    reasons = pack.get("term_reasons", {})
    assert _long_pieces(pack) - reasons.keys() == set()
    assert reasons.keys() - _long_pieces(pack) == set()  # no reason outlives its term
    assert all(reason.strip() and reason.isascii() and "\n" not in reason for reason in reasons.values())


def test_every_term_rare_in_the_evaluation_data_has_a_reason() -> None:
    pack = _pack()
    rows = _evaluation_rows()
    rare = {piece for piece in _long_pieces(pack) if 0 < sum(piece in text for text in rows) <= 2}
    assert rare - pack.get("term_reasons", {}).keys() == set()


def test_the_loader_keeps_reasons_and_rejects_an_empty_one() -> None:
    assert load_pack().term_reasons == _pack()["term_reasons"]
    broken = {**_pack(), "term_reasons": {"承担违约责任": " "}}
    with pytest.raises(ValueError, match="reason"):
        pack_from_dict(broken)


def test_each_clause_type_has_several_literal_patterns() -> None:
    for clause in _pack()["clauses"]:
        patterns = {pattern for rule in clause["rules"] for pattern in rule["patterns"]}
        assert len(patterns) >= 3, clause["label"]


def test_non_compete_does_not_rest_on_one_word() -> None:
    (clause,) = [c for c in _pack()["clauses"] if c["label"] == "竞业限制"]
    patterns = {pattern for rule in clause["rules"] for pattern in rule["patterns"]}
    assert len(clause["rules"]) >= 3
    assert {"竞业限制", "竞业禁止", "同业竞争"} <= patterns
    assert len({p for p in patterns if "竞业" not in p}) >= 5


# Sentences written for these tests in ordinary drafting language, not taken from any contract.
PRESENT = [
    ("违约金/违约责任", "乙方违反本合同约定的，应向甲方支付合同总价款百分之十的违约金。"),
    ("违约金/违约责任", "因卖方原因造成买方损失的，卖方应当赔偿买方的全部损失。"),
    ("违约金/违约责任", "借款人未按期还款的，贷款人有权对逾期部分按日加收罚息。"),
    ("违约金/违约责任", "任何一方违约给对方造成损失的，违约方应承担赔偿责任。"),
    ("不可抗力", "因不可抗力不能履行合同的，根据不可抗力的影响，部分或者全部免除责任。"),
    ("不可抗力", "遇有地震、洪水等自然灾害致使本合同无法履行的，受影响一方可延期履行。"),
    ("不可抗力", "本合同所称意外事件，是指双方不能预见、不能避免并不能克服的客观情况。"),
    ("保密", "双方对在合作中知悉的对方技术秘密负有保密义务。"),
    ("保密", "未经甲方书面同意，乙方不得向任何第三方披露本合同的内容。"),
    ("保密", "受托人应对委托人提供的经营资料严格保密，合同终止后仍须遵守。"),
    ("争议解决", "因履行本合同发生的争议，由双方协商解决；协商不成的，依法申请仲裁。"),
    ("争议解决", "双方发生纠纷的，任何一方可以向人民法院提起诉讼。"),
    ("争议解决", "凡因本合同引起的或与本合同有关的任何争议，均应提交仲裁。"),
    ("管辖/适用法律", "本合同的订立、效力、解释、履行及争议解决均适用中华人民共和国法律。"),
    ("管辖/适用法律", "因本合同引起的纠纷，由合同签订地人民法院管辖。"),
    ("管辖/适用法律", "双方同意将争议提交北京仲裁委员会按其仲裁规则仲裁。"),
    ("管辖/适用法律", "本协议受中国法律管辖并依其解释。"),
    ("合同解除/终止", "承租人擅自转租房屋的，出租人有权解除本合同。"),
    ("合同解除/终止", "经双方协商一致，可以解除本合同。"),
    ("合同解除/终止", "一方严重违约致使合同目的不能实现的，守约方可以书面通知对方解除合同。"),
    ("合同解除/终止", "劳动者严重违反用人单位规章制度的，用人单位可以解除劳动合同。"),
    ("付款/结算", "买方应于货物验收合格后三十日内以银行转账方式支付全部货款。"),
    ("付款/结算", "租金每季度支付一次，承租人应于每季度首月五日前付清。"),
    ("付款/结算", "本合同总价款为人民币五十万元，分两期支付。"),
    ("知识产权", "委托开发完成的软件著作权归委托方所有。"),
    ("知识产权", "乙方保证其提供的技术不侵犯任何第三方的专利权。"),
    ("知识产权", "履行本合同产生的技术成果的知识产权归双方共有。"),
    ("责任限制", "乙方在本合同项下的赔偿责任总额以合同总价款为限。"),
    ("责任限制", "对于因甲方提供的资料错误导致的损失，乙方概不负责。"),
    ("责任限制", "卖方支付的违约金总额最高不超过合同总价的百分之五。"),
    ("责任限制", "在任何情况下，任何一方均不对另一方的间接损失承担赔偿责任。"),
    ("竞业限制", "员工离职后两年内不得在与公司有竞争关系的单位任职。"),
    ("竞业限制", "乙方在合作期间不得从事与甲方相竞争的业务。"),
    ("竞业限制", "劳动者应遵守竞业禁止义务，公司在限制期内按月支付经济补偿。"),
    ("竞业限制", "卖方承诺在交易完成后不与买方发生同业竞争。"),
    ("定金", "买方应于合同签订后三日内向卖方支付定金人民币两万元。"),
    ("定金", "收受定金的一方不履行债务的，应当双倍返还定金。"),
    ("验收", "工程竣工后，发包人应按国家规定的验收标准组织验收。"),
    ("验收", "买受人应在收到货物后十日内检验，检验期间内未提出质量异议的，视为质量合格。"),
    ("验收", "设备安装调试完毕后，双方共同进行验收并签署验收报告。"),
    ("合同期限", "本合同期限为两年，自2025年3月1日起至2027年2月28日止。"),
    ("合同期限", "租赁期自2025年1月1日起至2025年12月31日止。"),
    ("合同期限", "本协议有效期三年，期满前一个月双方可协商续签。"),
    ("通知/送达", "本合同项下的任何通知均应以书面形式发送至对方在首部载明的地址。"),
    ("通知/送达", "一方变更通讯地址的，应于变更后三日内书面告知对方，否则按原地址寄送即视为送达。"),
    ("通知/送达", "通知以特快专递方式发出的，发出后第三日视为收到。"),
]


@pytest.mark.parametrize(("label", "text"), PRESENT, ids=[f"{c[0]}-{n}" for n, c in enumerate(PRESENT)])
def test_clause_in_unseen_wording_is_found(label: str, text: str) -> None:
    finding = clause_presence(text)[label]
    assert finding is not None
    assert (finding.label, finding.status) == (label, STIPULATED)
    # The finding covers the clause (here the whole sentence), with the words that matched inside it.
    assert (finding.start, finding.end) == (0, len(text))
    assert finding.start <= finding.match_start < finding.match_end <= finding.end
    assert text[finding.match_start : finding.match_end] == finding.matched


ABSENT = [
    ("通知/送达", "甲方应提前三日以传真通知乙方提货。"),
    ("竞业限制", "乙方不得在租赁房屋内从事违法活动。"),
    ("竞业限制", "甲方不得向乙方销售与样品不同类的产品。"),
    ("保密", "乙方应采取措施防止燃气泄漏。"),
    ("合同期限", "乙方应为甲方员工提供为期三天的培训。"),
    ("知识产权", "房屋的产权归甲方所有。"),
]


@pytest.mark.parametrize(("label", "text"), ABSENT, ids=[f"{c[0]}-{n}" for n, c in enumerate(ABSENT)])
def test_everyday_words_near_a_clause_word_are_not_that_clause(label: str, text: str) -> None:
    assert clause_presence(text)[label] is None
