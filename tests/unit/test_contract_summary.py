"""The contract summary leads with what a lawyer must decide on and ends with what is already agreed."""

from __future__ import annotations

from contracts.findings import Finding
from contracts.legal.desk import contract_summary_template


def _clause(label: str, status: str = "stipulated") -> Finding:
    return {"kind": "clause", "source": "rule", "status": status, "label": label}


def test_decisions_come_first_and_what_is_agreed_last() -> None:
    findings: list[Finding] = [
        _clause("保密"),
        _clause("违约金/违约责任"),
        _clause("验收", status="blank"),
        {"kind": "term", "source": "rule", "label": "price", "status": "blank"},
        {"kind": "risk", "source": "rule", "message": "定金超过合同标的额的20%"},
        {"kind": "playbook", "grade": "escalate", "title": "定金上限", "message": "超过法定上限"},  # type: ignore[list-item]
        {"kind": "playbook", "grade": "negotiate", "title": "付款期限", "message": "超过30天"},  # type: ignore[list-item]
    ]
    summary = contract_summary_template(findings)
    order = [summary.index(mark) for mark in ("需上报", "风险提示", "需谈判", "未约定争议解决", "待填写", "已约定条款")]
    assert order == sorted(order), summary
    assert "民事诉讼法第24条" in summary  # what the law says when no forum is agreed
    assert "验收、价款" in summary  # a blank clause and a blank key term alike
    assert summary.endswith("已约定条款：保密、违约金/违约责任。")


def test_a_contract_with_the_key_clauses_lists_no_gap() -> None:
    labels = ["违约金/违约责任", "争议解决", "管辖/适用法律", "合同解除/终止"]
    summary = contract_summary_template([_clause(label) for label in labels])
    assert "未约定" not in summary and "待填写" not in summary
