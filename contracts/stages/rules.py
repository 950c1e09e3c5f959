"""The rules stage: deterministic findings from the rule packs (and an organisation's ticket classifier).

A contract gets one finding per clause type (`rules.clauses.groups`) and one per entity group
(`rules.entities.groups`): the places a type or a party is mentioned are spans of that finding, not findings.
"""

from __future__ import annotations

from contracts.findings import clause_finding, entity_finding, risk_finding, ticket_findings
from contracts.learned.clauses import clause_model_current
from contracts.learned.tickets import classifier_current
from contracts.stages.base import JobContext
from rules.clauses import clause_groups, risk_checks
from rules.entities import ENTITY_PACK, entity_groups, extract_entities
from rules.tickets.combine import classify_ticket
from rules.tickets.urgency import urgency_cues


class RulesStage:
    """Deterministic findings: clauses and statutory risks for contracts, category/routing/urgency for
    tickets, entities and personal data for both."""

    name = "rules"

    def run(self, ctx: JobContext) -> None:
        normalized = ctx.normalized_text()
        text = normalized.text
        packs: dict[str, str] = {ENTITY_PACK[0]: ENTITY_PACK[1]}
        slug = ctx.document.organisation.slug
        if ctx.document.kind == "contract":
            groups, analysis = clause_groups(text, model=clause_model_current(slug))
            ctx.findings.extend(clause_finding(normalized, group) for group in groups)
            ctx.findings.extend(risk_finding(normalized, r) for r in risk_checks(text, analysis.findings))
            if groups:
                packs["clauses"] = groups[0].primary.pack_version
        else:
            classifier = classifier_current(slug) if slug else None  # no organisation (`analyze`): rules alone
            classification = classify_ticket(text, classifier)
            urgency = urgency_cues(text)
            ctx.findings.extend(ticket_findings(normalized, classification, urgency))
            packs["tickets"] = classification.pack_version
            packs["tickets_urgency"] = urgency.pack_version
        grouped = entity_groups(text, extract_entities(text))
        ctx.findings.extend(entity_finding(normalized, group) for group in grouped)
        ctx.rule_packs.update(packs)
