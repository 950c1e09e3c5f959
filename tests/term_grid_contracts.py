"""Three small contracts for the key-term grid tests (written for them): a lease at ¥100,000, a purchase at ¥9,000
with its 定金 left blank, and a labour contract with no price and a person as a party."""

from __future__ import annotations

from typing import Any

from contracts.intake.submission import Submission, document_submit
from contracts.models import Document
from contracts.pipeline import job_run

LEASE = "\n".join(
    [
        "房屋租赁合同",
        "出租人（甲方）：北京某某置业有限公司",
        "承租人（乙方）：某某科技有限公司",
        "第一条 租赁期限自2026年3月1日起至2029年2月28日止。",
        "第二条 租金总额为人民币壹拾万元整（¥100,000.00），含税。",
        "第三条 逾期支付的，每日按应付未付金额的万分之五支付违约金。",
        "第四条 争议提交北京仲裁委员会仲裁。",
        "本合同于2026年2月10日签订。",
    ]
)
PURCHASE = "\n".join(
    [
        "设备采购合同",
        "供方（甲方）：上海某某机械有限公司",
        "需方（乙方）：某某科技有限公司",
        "第一条 合同总价款为人民币9,000元（含税）。",
        "第二条 需方应于签订之日起五日内支付定金人民币＿＿＿元。",
        "第三条 因本合同发生的争议，向需方所在地人民法院起诉。",
        "本合同于2025年12月1日签订。",
    ]
)
LABOUR = "\n".join(
    [
        "劳动合同书",
        "用人单位（甲方）：某某科技有限公司",
        "劳动者（乙方）：王小明，身份证号：110101199003074578",
        "第一条 本合同期限为三年，自2026年1月1日起，其中试用期三个月。",
        "第二条 争议提交劳动人事争议仲裁委员会仲裁。",
    ]
)


def contract_analysed(organisation: Any, text: str, title: str) -> Document:
    """Submit a contract's text and run its job to the end (rules only; the model is off in tests)."""
    outcome = document_submit(
        organisation=organisation, submission=Submission(kind="contract", source="api", text=text, title=title)
    )
    job_run(outcome.job.pk, "term-grid-test")
    outcome.document.refresh_from_db()
    return outcome.document


def three_contracts(organisation: Any) -> dict[str, Document]:
    """The lease, the purchase and the labour contract, analysed, by name."""
    return {
        "lease": contract_analysed(organisation, LEASE, "房屋租赁合同"),
        "purchase": contract_analysed(organisation, PURCHASE, "设备采购合同"),
        "labour": contract_analysed(organisation, LABOUR, "劳动合同书"),
    }


def term_finding(document: Document, kind: str) -> dict[str, Any]:
    """The first term finding of `kind` in the document's newest result."""
    result = document.latest_result()
    assert result is not None
    return next(f for f in result.data["findings"] if f["kind"] == "term" and f["label"] == kind)
