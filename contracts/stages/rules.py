"""The rules stage: deterministic findings from the rule packs (and an organisation's learned models).

What a document's rules find is its desk's (`contracts.desks`): a contract gets one finding per clause type and its
statutory risks, a ticket its category, routing and urgency. Every kind gets one finding per entity group
(`rules.entities.groups`): the places an entity is mentioned are spans of that finding, not findings. Last, the
desk compares the stored document with its organisation's history (`Desk.stored_findings`: a ticket's repeat case).
"""

from __future__ import annotations

from contracts.findings import entity_finding
from contracts.stages.base import JobContext
from rules.entities import ENTITY_PACK, entity_groups, extract_entities


class RulesStage:
    """Deterministic findings: the desk's own (clauses and risks, or category and urgency), then entities and
    personal data for every kind."""

    name = "rules"

    def run(self, ctx: JobContext) -> None:
        normalized = ctx.normalized_text()
        output = ctx.desk.rule_findings(normalized, organisation=ctx.document.organisation.slug)
        ctx.findings.extend(output.findings)
        grouped = entity_groups(normalized.text, extract_entities(normalized.text))
        ctx.findings.extend(entity_finding(normalized, group) for group in grouped)
        ctx.findings.extend(ctx.desk.stored_findings(ctx.document, normalized))
        ctx.rule_packs.update({ENTITY_PACK[0]: ENTITY_PACK[1], **output.packs})
