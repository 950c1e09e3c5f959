"""Every reply and summary DocGate's templates can write passes the outgoing gate (lexicon + learned model)."""

from __future__ import annotations

import pytest

from contracts.findings import Finding
from contracts.gate import gate_decide
from contracts.hotline.replies import reply_problems, ticket_reply
from contracts.legal.desk import contract_summary_template
from rules.tickets.pack import load_pack

SAMPLE_TICKET = "我是A市居民，电话13812345678，小区楼下餐馆油烟太大，晚上无法开窗，多次反映至今未解决。"


def _findings() -> list[list[Finding]]:
    """A ticket's category and urgency findings for every category, department and urgency of the taxonomy."""
    taxonomy = load_pack().taxonomy
    cases: list[list[Finding]] = []
    for category in taxonomy.categories:
        departments = {category.department, *(sub.department for sub in category.level2 if sub.department)}
        for department in sorted(departments):
            for urgency in ("normal", "urgent"):
                found: Finding = {"kind": "ticket_category", "source": "rule", "label": category.name,
                                  "department": department}  # fmt: skip
                cases.append([found, {"kind": "urgency", "source": "rule", "label": urgency}])
    return cases


def _replies() -> list[str]:
    replies = {ticket_reply([], text=SAMPLE_TICKET, organisation_id=None)}
    replies |= {ticket_reply(found, text=SAMPLE_TICKET, organisation_id=None) for found in _findings()}
    return sorted(replies)


def test_every_reply_of_the_template_with_a_category_is_fit_to_send() -> None:
    """DocGate's own reply names the department, the step and the time limit, and the citizen's matter: the reply
    check finds nothing in it (only a ticket without a category gets the bare acknowledgement, which it flags)."""
    for found in _findings():
        reply = ticket_reply(found, text=SAMPLE_TICKET, organisation_id=None)
        assert reply_problems(reply, found, text=SAMPLE_TICKET, own_contacts=[]) == [], reply
        assert "13812345678" not in reply and "油烟" in reply
    bare = ticket_reply([], text=SAMPLE_TICKET, organisation_id=None)
    assert {p["code"] for p in reply_problems(bare, [], text=SAMPLE_TICKET, own_contacts=[])} >= {"reply_no_time"}


def _summaries() -> list[str]:
    def clause(label: str) -> Finding:
        return {"kind": "clause", "source": "rule", "status": "stipulated", "label": label}

    def risk(message: str) -> Finding:
        return {"kind": "risk", "source": "rule", "message": message}

    return [
        contract_summary_template([]),
        contract_summary_template([clause("违约金/违约责任"), clause("保密")]),
        contract_summary_template(
            [
                clause("定金"),
                risk("定金约为合同标的额的35.0%，超过20%的部分不产生定金效力"),
                risk("竞业限制期限为三年，超过法定最长两年"),
                risk("合同同时约定违约金和定金，一方违约时对方只能选择适用其一"),
            ]
        ),
    ]


@pytest.mark.parametrize("text", [*_replies(), *_summaries()])
def test_a_template_answer_is_allowed_out(text: str, settings: object) -> None:
    decision = gate_decide(text=text, kind="outgoing")
    assert decision.decision == "allow", decision.reasons
    assert decision.model_version is not None


TICKET = "我在网上买的洗衣机坏了，商家不给退款，请市场监管部门帮忙处理。"


@pytest.mark.parametrize(
    "draft",
    [
        "您好！您的退款请到 http://refund-help.example.com/claim 登记，工作人员会尽快处理。",
        "您好！请登录www.tuikuan-kefu.cn填写退款申请。",
        "您好！退款事宜请添加微信 kefu_2026a 联系专人办理。",
        "您好！请加QQ群：87654321，发送订单号即可退款。",
    ],
    ids=["http-link", "bare-domain", "wechat-handle", "qq-group"],
)
def test_a_draft_that_sends_the_citizen_somewhere_the_ticket_did_not_name_is_blocked(draft: str) -> None:
    decision = gate_decide(text=draft, kind="outgoing", source=TICKET)
    assert decision.decision == "block", decision.reasons
    assert any("foreign_link" in reason for reason in decision.reasons), decision.reasons


def test_a_link_the_citizen_gave_may_be_repeated_in_the_reply() -> None:
    ticket = "网站 www.example-shop.cn 卖假货，请查处。"
    decision = gate_decide(
        text="您好！您反映的 www.example-shop.cn 售假问题已转交市场监管局核查。", kind="outgoing", source=ticket
    )
    assert not any("foreign_link" in reason for reason in decision.reasons), decision.reasons
