"""The hotline desk's handler: what a ticket's rules run, what the cascade asks about it, its reply."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from django.conf import settings

from contracts.cascade import CascadeSettings, LLMPlan, Question
from contracts.desks import ModelAnswer, RuleOutput
from contracts.findings import Finding
from contracts.hotline.cases import ticket_case_findings
from contracts.hotline.deadlines.clock import ticket_deadline_store
from contracts.hotline.departments import department_table
from contracts.hotline.findings import llm_ticket_finding, rule_category, rule_urgency, ticket_findings
from contracts.hotline.replies import reply_problems, ticket_reply
from contracts.learned.tickets import classifier_current
from contracts.models import Document, Result
from inference.client import LLMClient
from inference.questions import ticket_classify, ticket_prompt_values
from rules.normalize import NormalizedText
from rules.tickets.combine import classify_ticket
from rules.tickets.taxonomy import load_taxonomy
from rules.tickets.urgency import urgency_cues


def rule_confidence(findings: list[Finding]) -> float:
    """The rules' own confidence in their category; 0 where they found none."""
    category = rule_category(findings)
    return float(category.get("confidence") or 0.0) if category is not None and category.get("label") else 0.0


class HotlineDesk:
    """Tickets: a category with its routing department and urgency cues; the model is asked about an uncertain
    category; the suggested response is a reply to the citizen."""

    kind: Literal["ticket"] = "ticket"
    conflict_kinds: Mapping[str, bool] = {"ticket_category": True}

    def rule_findings(self, normalized: NormalizedText, *, organisation: str) -> RuleOutput:
        classifier = classifier_current(organisation) if organisation else None  # no organisation: rules alone
        classification = classify_ticket(normalized.text, classifier, departments=department_table(organisation))
        urgency = urgency_cues(normalized.text)
        packs = {"tickets": classification.pack_version, "tickets_urgency": urgency.pack_version}
        return RuleOutput(ticket_findings(normalized, classification, urgency), packs)

    def stored_findings(self, document: Document, normalized: NormalizedText) -> list[Finding]:
        return ticket_case_findings(document, normalized.text)  # repeat cases (重复件): its case, earlier tickets

    def plan_questions(self, findings: list[Finding], knobs: CascadeSettings) -> list[tuple[Question, bool]]:
        confidence = rule_confidence(findings)
        if knobs.policy == "always":
            return [(Question("ticket_category", "policy always"), True)]
        if confidence < knobs.category_confidence:
            reason = f"rule confidence {confidence:.2f} < {knobs.category_confidence}"
            return [(Question("ticket_category", reason), True)]
        return [(Question("ticket_category", f"skipped: rule confidence {confidence:.2f}"), False)]

    def question_prompts(self, plan: LLMPlan) -> list[tuple[str, dict[str, str]]]:
        if plan.question("ticket_category") is None:
            return []
        return [("ticket_classification", ticket_prompt_values(load_taxonomy()))]

    def questions_ask(
        self, plan: LLMPlan, client: LLMClient, normalized: NormalizedText, *, budget: int | None
    ) -> list[ModelAnswer]:
        if plan.question("ticket_category") is None:
            return []
        result = ticket_classify(client, normalized.text, load_taxonomy(), budget=budget)
        found = [llm_ticket_finding(normalized, f, result.prompt_version) for f in result.findings]
        return [ModelAnswer(result, found)]

    def asked(self, plan: LLMPlan | None) -> Callable[[str, str], bool]:
        category = plan is None or plan.question("ticket_category") is not None
        return lambda kind, label: category

    def confidence(self, findings: list[Finding]) -> dict[str, float]:
        category, value = rule_category(findings), rule_confidence(findings)
        if category is None or not category.get("label"):
            return {"category": 0.0}
        if category.get("provenance") == "both":
            value = 1 - (1 - value) * 0.5  # two independent layers agreeing halve the doubt
        return {"category": round(value, 4)}

    def review_reasons(self, findings: list[Finding], confidence: Mapping[str, float]) -> list[str]:
        """`low_confidence` when the category is below DOCGATE_MIN_CONFIDENCE by the rules' own account: the model
        agreeing raises the stated confidence, never a doubtful category out of review (text in a ticket can talk
        a model into agreeing); `routing_uncertain` when the organisation's classifier is below its category's
        routing threshold, so a dispatcher routes the ticket."""
        stated = min(rule_confidence(findings), confidence.get("category", 0.0))
        reasons = ["low_confidence"] if stated < settings.DOCGATE_MIN_CONFIDENCE else []
        category = rule_category(findings)
        routing = category.get("routing") if category is not None else None
        # Below its category's threshold (the organisation's model's), a dispatcher routes the ticket.
        if isinstance(routing, dict) and routing.get("needs_dispatcher"):
            reasons.append("routing_uncertain")
        return reasons

    def response_template(self, findings: list[Finding], *, source: str, organisation: Any) -> str:
        return ticket_reply(findings, text=source, organisation_id=getattr(organisation, "pk", None))

    def response_check(
        self, text: str, findings: list[Finding], *, source: str, organisation: Any
    ) -> list[dict[str, Any]]:
        contacts = getattr(organisation, "reply_contact_list", [])
        return reply_problems(text, findings, text=source, own_contacts=contacts)

    def response_fields(self, findings: list[Finding]) -> dict[str, Any]:
        category = rule_category(findings)
        return {
            "category": category.get("label") if category else None,
            "level2": category.get("level2") if category else None,
            "department": category.get("department") if category else None,
            "urgency": rule_urgency(findings),
        }

    def draft_facts(self, findings: list[Finding]) -> str:
        lines = []
        for finding in findings:
            if finding["kind"] == "ticket_category":
                lines.append(
                    f"分类: {finding.get('label')} / {finding.get('level2') or ''} → {finding.get('department')}"
                )
            elif finding["kind"] == "urgency":
                lines.append(f"紧急程度: {finding.get('label')}")
        return "\n".join(dict.fromkeys(lines)) or "无"

    def result_stored(self, result: Result) -> None:
        """The ticket's deadline follows its newest category and urgency."""
        ticket_deadline_store(result=result)
