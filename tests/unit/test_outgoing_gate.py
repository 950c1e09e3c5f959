"""Every reply and summary DocGate's templates can write passes the outgoing gate (lexicon + learned model)."""

from __future__ import annotations

import pytest

from contracts.findings import Finding
from contracts.gate import gate_decide
from contracts.hotline.desk import ticket_reply_template
from contracts.legal.desk import contract_summary_template
from rules.tickets.pack import load_pack


def _replies() -> list[str]:
    taxonomy = load_pack().taxonomy
    replies = {ticket_reply_template(None, False)}
    for category in taxonomy.categories:
        departments = {category.department, *(sub.department for sub in category.level2 if sub.department)}
        for department in departments:
            for urgent in (False, True):
                finding: Finding = {
                    "kind": "ticket_category",
                    "source": "rule",
                    "label": category.name,
                    "department": department,
                }
                replies.add(ticket_reply_template(finding, urgent))
    return sorted(replies)


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
