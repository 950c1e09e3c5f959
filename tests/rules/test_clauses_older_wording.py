"""Clause presence on wording the pack first missed: older model texts, heading-only template articles, and 适用法律,
通知 and 验收 in their everyday senses (which must not count)."""

from __future__ import annotations

import pytest

from rules.clauses import STIPULATED, clause_presence
from rules.evaluation.clause_weak import evaluate_weak, title_types, weak_labels

FOUND = [
    ("合同解除/终止", "卖方迟延交货超过十个星期的，买方有权取消合同。"),
    ("合同解除/终止", "甲方如随意中止合同或无故换人，应向乙方偿付违约金。"),
    ("合同解除/终止", "七、合同期满后即终止执行，并办理终止合同手续。"),
    ("合同解除/终止", "十一、合同的变更和解除＿＿＿＿＿＿＿＿＿＿＿＿"),
    ("合同解除/终止", "第十条 合同的取消\n卖方不能履行义务的，买方可以撤销全部或部分订单。"),
    ("合同期限", "二、承包期限\n自＿＿＿＿年＿＿月＿＿日起至＿＿＿＿年＿＿月＿＿日止，共＿＿年。"),
    ("合同期限", "第五条 有效期限\n本合同自双方签字之日起三年内有效。"),
    ("合同期限", "十三、本合同有效期自　　年　　月　　日至　　年　　月　　日止。\n供方：（盖章）　　需方：（盖章）"),
    ("管辖/适用法律", "本合同的适用法律为中华人民共和国法律。"),
    ("管辖/适用法律", "本合同应受装运货物之船舶的船旗国法律管辖。"),
    ("通知/送达", "正式通知以挂号信航寄，一式四份。"),
    ("通知/送达", "本合同要求的通知和通讯，不论以何种方式传递，均自实际收到时起生效。"),
    ("通知/送达", "乙方确认以下地址为送达地址，按此地址寄出的文件视为送达。"),
    ("验收", "甲方收到货物后十日内按约定标准验收，逾期未提出异议的视为验收合格。"),
]

NOT_FOUND = [
    ("管辖/适用法律", "本合同未尽事宜，依照有关适用法律规定执行。"),
    ("管辖/适用法律", "任何一方可在适用法律允许的期间内采取法律程序行使权利。"),
    ("管辖/适用法律", "第三条 合同文件使用的语言文字、标准和适用法律。\n3.1 合同文件使用汉语。"),
    ("管辖/适用法律", "如果根据合同适用法律，双方不必继续履约，则双方均应免除履约责任。"),
    ("管辖/适用法律", "合营公司为中国法人，受中国法律的管辖和保护。"),
    ("管辖/适用法律", "因本合同发生纠纷，协商不成的，可起诉人民法院处理。"),
    ("管辖/适用法律", "租赁纠纷按照《最高人民法院关于审理城镇房屋租赁合同纠纷案件的解释》处理。"),
    ("管辖/适用法律", "本合同签订后，应送交劳动争议仲裁机构鉴证，发生争议时依法处理。"),
    ("管辖/适用法律", "卖方应提交中国国际贸易促进委员会出具的不可抗力证明。"),
    ("通知/送达", "甲方代表在验收二十四小时前将通知送达乙方，乙方派人参加。"),
    ("通知/送达", "第五条 装运通知：卖方应于货物装船后二十四小时内以电报通知买方。"),
    ("通知/送达", "租赁期间出租方如将租赁物所有权转移给第三方，应正式通知承租方。"),
    ("通知/送达", "乙方专家应在报告寄出后以电传通知甲方报告寄出日期和邮单号。"),
    ("验收", "本合同自双方签字后生效，全部工程验收后失效。"),
    ("验收", "在交货日期前，乙方可陆续交货，甲方可陆续验收付款。"),
]


@pytest.mark.parametrize(("label", "text"), FOUND, ids=[f"{c[0]}-{n}" for n, c in enumerate(FOUND)])
def test_older_and_template_wording_is_found(label: str, text: str) -> None:
    finding = clause_presence(text)[label]
    assert finding is not None
    assert finding.status == STIPULATED


@pytest.mark.parametrize(("label", "text"), NOT_FOUND, ids=[f"{c[0]}-{n}" for n, c in enumerate(NOT_FOUND)])
def test_everyday_senses_are_not_clauses(label: str, text: str) -> None:
    assert clause_presence(text)[label] is None


def test_weak_labels_come_from_titled_articles() -> None:
    assert title_types("合同的变更和解除") == {"合同解除/终止"}
    assert title_types("装运通知") == set()  # a delivery notice is not a notice clause
    assert title_types("交货期限") == set()  # a delivery deadline is not the contract's term
    text = "第一条 合同期限\n自2024年1月1日至2025年12月31日止。\n第二条 违约责任\n＿＿＿＿\n第三条 其他\n未尽事宜另议。"
    labels, titled = weak_labels(text)
    assert labels == {"合同期限"}  # a bare 违约责任 slot is not a clause under the labelling policy
    assert titled == 3


def test_weak_check_counts_found_missed_and_unheaded() -> None:
    titled = "".join(f"第{n}条 事项{n}\n内容。\n" for n in "一二三四五")
    texts = ["第一条 合同期限\n自2024年1月1日至2025年12月31日止。\n" + titled, titled]

    def predict(text: str) -> dict[str, tuple[int, int] | None]:
        return {"合同期限": None, "通知/送达": (0, 1)} if text.startswith("第一条 合同期限") else {"通知/送达": (0, 1)}

    report = evaluate_weak(texts, predict)
    assert report["documents"] == 2 and report["well_titled"] == 2
    term, notice = report["per_clause"]["合同期限"], report["per_clause"]["通知/送达"]
    assert (term["weak_positives"], term["weak_recall"]) == (1, 0.0)
    assert (notice["found_unheaded"], notice["weak_precision_lower"]) == (2, 0.0)
