"""The cascade: the model is asked only what the rules leave in doubt, and every job says what and why."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, cast

import pytest

from contracts.cascade import CascadeSettings, LLMPlan, llm_plan
from contracts.desks import desk_for
from contracts.findings import Finding
from contracts.gate import GateDecision

LABELS = ("违约金/违约责任", "保密", "不可抗力", "争议解决")
KNOBS = CascadeSettings(
    policy="cascade", clause_confidence=0.85, gate_risk=0.2, category_confidence=0.5, drafts=False,
    clause_labels=LABELS, gate_model_risk={"contract": 0.75},
)  # fmt: skip
SAFE = GateDecision(
    decision="allow", risk=0.02, rule_risk=0.02, model_risk=0.03, model_category=None, model_version="v",
    kind="contract", llm_risk=None, llm_status="off", reasons=(), categories={}, pack_version="p",
)  # fmt: skip


def clause(label: str, status: str = "stipulated", confidence: float = 0.95, **extra: Any) -> dict[str, Any]:
    return {"kind": "clause", "source": "rule", "label": label, "status": status, "confidence": confidence, **extra}


def plan_for(findings: list[dict[str, Any]], gate: GateDecision = SAFE, kind: str = "contract", **knobs: Any) -> Any:
    typed = cast(list[Finding], findings)  # plain dicts with a finding's keys
    settings = replace(KNOBS, **knobs)
    questions = desk_for(kind).plan_questions(typed, settings)
    return llm_plan(desk_questions=questions, gate=gate, cantonese=False, knobs=settings)


def asked(plan: Any) -> dict[str, tuple[str, ...]]:
    return {q.name: q.labels for q in plan.asked}


def test_a_contract_the_rules_read_plainly_asks_the_model_nothing() -> None:
    plan = plan_for([clause("违约金/违约责任"), clause("争议解决", confidence=1.0)])
    assert not plan.asks_model
    assert {q.name for q in plan.skipped} == {"gate", "clauses", "draft"}
    assert all(q.reason.startswith("skipped") for q in plan.skipped)


def test_only_weak_negated_referenced_or_conflicting_clause_types_are_asked() -> None:
    findings = [
        clause("违约金/违约责任", confidence=0.8),
        clause("保密", status="negated"),
        clause("不可抗力", occurrences=[{"status": "negated"}]),
        clause("争议解决", confidence=0.99),
    ]
    plan = plan_for(findings)
    assert asked(plan) == {"clauses": ("违约金/违约责任", "保密", "不可抗力")}
    reason = plan.question("clauses").reason
    assert "weak rule evidence (0.80 < 0.85)" in reason and "negated" in reason and "conflict" in reason


def test_a_blank_template_article_is_not_a_doubt() -> None:
    assert not plan_for([clause("违约金/违约责任", status="blank", confidence=0.6)]).asks_model


@pytest.mark.parametrize(
    ("gate", "kind", "expected"),
    [
        (replace(SAFE, rule_risk=0.35), "contract", True),  # uncertain band
        (replace(SAFE, model_risk=0.6), "contract", False),  # ordinary contract language, below the contract floor
        (replace(SAFE, model_risk=0.8), "contract", True),  # the contract's top decile
        (replace(SAFE, model_risk=0.3, kind="ticket"), "ticket", True),  # tickets: the lexicon's band
        (replace(SAFE, model_risk=0.6, decision="review"), "contract", False),  # the model never blocks a contract
        (replace(SAFE, rule_risk=0.9, decision="block"), "contract", False),  # nothing left to raise
        (replace(SAFE, rule_risk=0.6, decision="review", kind="ticket"), "ticket", False),  # the most it can be
        (SAFE, "contract", False),  # clearly safe
    ],
)
def test_the_gate_question_is_asked_only_where_the_answer_can_change_the_decision(
    gate: GateDecision, kind: str, expected: bool
) -> None:
    findings = [{"kind": "ticket_category", "source": "rule", "label": "环境保护", "confidence": 0.9}]
    assert ("gate" in asked(plan_for(findings, gate, kind))) is expected


def test_a_ticket_category_below_the_threshold_is_asked_and_a_confident_one_is_not() -> None:
    unsure = [{"kind": "ticket_category", "source": "rule", "label": "城乡建设", "confidence": 0.31}]
    sure = [{"kind": "ticket_category", "source": "rule", "label": "城乡建设", "confidence": 0.92}]
    assert "ticket_category" in asked(plan_for(unsure, kind="ticket"))
    assert "ticket_category" not in asked(plan_for(sure, kind="ticket"))
    assert "ticket_category" in asked(plan_for([], kind="ticket")), "no category at all is the least sure"


def test_always_asks_every_question_and_off_none_and_drafts_only_when_enabled() -> None:
    findings = [clause("违约金/违约责任")]
    everything = plan_for(findings, policy="always", drafts=True)
    assert asked(everything) == {"gate": (), "clauses": LABELS, "draft": ()}
    assert not plan_for(findings, policy="off", drafts=True).asks_model
    assert "draft" in asked(plan_for(findings, drafts=True))


def test_the_plan_is_recorded_with_reasons() -> None:
    record = plan_for([clause("保密", status="referenced")]).record()
    assert record["policy"] == "cascade"
    assert record["asked"] == [
        {"question": "clauses", "reason": "保密: rule evidence is referenced", "labels": ["保密"]}
    ]
    assert {item["question"] for item in record["skipped"]} == {"gate", "draft"}


def test_a_stored_plan_and_gate_decision_read_back_as_they_were() -> None:
    # The llm phase of a job asks what its rules phase planned, from the record stored on the job (JSON).
    findings = [
        clause("保密", status="negated", span=[40, 60], occurrences=[{"status": "negated", "span": [300, 320]}])
    ]
    plan = plan_for(findings, drafts=True)
    assert plan.question("clauses").spans and plan.skipped
    assert LLMPlan.from_record(json.loads(json.dumps(plan.record()))) == plan
    gate = replace(
        SAFE, decision="review", reasons=("lexicon: 诈骗", "safety model P(unsafe)=0.81"), categories={"fraud": 0.4}
    )
    assert GateDecision.from_dict(json.loads(json.dumps(gate.as_dict()))) == gate


def test_doubted_clause_types_carry_where_their_rule_evidence_lies() -> None:
    findings = [
        clause("保密", status="negated", span=[40, 60], occurrences=[{"status": "negated", "span": [300, 320]}]),
        clause("争议解决", confidence=0.99, span=[500, 540]),  # read plainly: its place is not asked about
    ]
    question = plan_for(findings).question("clauses")
    assert question.spans == ((40, 60), (300, 320))
    assert plan_for(findings, policy="always").question("clauses").spans == ()  # always: the whole document


def test_only_the_chunks_holding_the_evidence_are_read_in_original_offsets() -> None:
    from contracts.legal.desk import evidence_chunks
    from inference.chunking import Chunk
    from rules.normalize import normalize

    original = "第一条　甲方應當保密。\r\n" * 4 + "第九条 争议提交仲裁。"  # full-width spaces, CRLF, traditional
    normalized = normalize(original)
    assert len(normalized.text) != len(original)
    late = normalized.text.index("第九条")
    chunks = [Chunk(normalized.text[:late], 0, 10), Chunk(normalized.text[late:], late, 5)]
    evidence = original.index("第九条")
    wanted = evidence_chunks(normalized, [(evidence, evidence + 3)])
    assert [wanted(c) for c in chunks] == [False, True]
    assert [evidence_chunks(normalized, [(0, 2)])(c) for c in chunks] == [True, False]


@pytest.mark.parametrize(
    ("rules", "provenance", "low"), [(0.3, "both", True), (0.3, "rule", True), (0.7, "both", False)]
)
def test_the_model_agreeing_never_lifts_a_doubtful_category_out_of_review(
    rules: float, provenance: str, low: bool, settings: Any
) -> None:
    settings.DOCGATE_MIN_CONFIDENCE = 0.5
    desk = desk_for("ticket")
    category = {"kind": "ticket_category", "source": "rule", "label": "城乡建设", "confidence": rules}
    findings = cast(list[Finding], [{**category, "provenance": provenance}])
    confidence = desk.confidence(findings)
    assert confidence["category"] >= rules  # two layers agreeing still halve the doubt the result states
    assert ("low_confidence" in desk.review_reasons(findings, confidence)) is low
