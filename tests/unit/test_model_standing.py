"""The standing policy's pure parts: which answers agree with the final result, and how the plan follows the
policy's word (consulted only for a question the rules would ask, so a skipped one never spends a probe)."""

from __future__ import annotations

from typing import Any, cast

from contracts.cascade import Standing, llm_plan
from contracts.desks import desk_for
from contracts.findings import Finding
from contracts.standing.tally import final_labels
from tests.unit.test_cascade import KNOBS, SAFE, clause

CLAUSES = {"kinds": {"clause": False}, "labels": ["保密", "不可抗力"]}
CATEGORY = {"kinds": {"ticket_category": True}, "labels": []}


def llm(kind: str, label: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "source": "llm", "label": label, **extra}


def test_the_final_clauses_are_the_present_ones_asked_about_without_an_unchosen_conflict() -> None:
    findings = [
        clause("保密", provenance="both"),
        clause("不可抗力", status="negated"),
        clause("争议解决"),  # not asked about: outside the answer's scope
        llm("clause", "不可抗力", conflict="rules_negated_llm_present"),
    ]
    assert final_labels(findings, CLAUSES) == {"clause:保密"}
    # A reviewer who approves the model's reading makes it final.
    findings[-1]["review"] = "approved"
    assert final_labels(findings, CLAUSES) == {"clause:保密", "clause:不可抗力"}


def test_a_single_answer_is_the_rules_until_a_reviewer_chooses_another() -> None:
    rule = {"kind": "ticket_category", "source": "rule", "label": "城乡建设"}
    model = llm("ticket_category", "环境保护", conflict="category_disagrees")
    assert final_labels([rule, model], CATEGORY) == {"ticket_category:城乡建设"}
    model["review"] = "approved"
    assert final_labels([rule, model], CATEGORY) == {"ticket_category:环境保护"}
    corrected = {**rule, "label": "环境保护", "review": "corrected"}
    assert final_labels([corrected], CATEGORY) == {"ticket_category:环境保护"}


def test_the_plan_skips_or_probes_as_the_standing_says_and_asks_it_only_about_questions_it_would_ask() -> None:
    consulted: list[str] = []

    def standing(name: str) -> Standing | None:
        consulted.append(name)
        return Standing(ask=False, note="rules-only by policy: 0.00 < 0.3") if name == "clauses" else None

    referenced = cast(list[Finding], [clause("保密", status="referenced")])  # plain dicts with a finding's keys
    questions = desk_for("contract").plan_questions(referenced, KNOBS)
    plan = llm_plan(desk_questions=questions, gate=SAFE, cantonese=False, knobs=KNOBS, standing=standing)
    assert consulted == ["clauses"], "the gate and the draft were not going to be asked"
    assert not plan.asks_model
    skipped = next(q for q in plan.skipped if q.name == "clauses")
    assert skipped.reason == "skipped: rules-only by policy: 0.00 < 0.3" and skipped.labels == ("保密",)

    def probe(name: str) -> Standing:
        return Standing(ask=True, note="probe: 0.00 < 0.3")

    plan = llm_plan(desk_questions=questions, gate=SAFE, cantonese=False, knobs=KNOBS, standing=probe)
    reasons = [(q.name, q.reason) for q in plan.asked]
    assert reasons == [("clauses", "保密: rule evidence is referenced; probe: 0.00 < 0.3")]
