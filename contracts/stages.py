"""Pipeline stages: small objects with a name and a run method over the shared job context."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from contracts.extraction import extract
from contracts.findings import clause_finding, entity_finding, risk_finding, ticket_findings

if TYPE_CHECKING:
    from contracts.pipeline import JobContext

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ARTICLE_HEADING = re.compile(r"^\s*第[一二三四五六七八九十百零〇\d]+条", re.MULTILINE)


def text_statistics(text: str) -> dict[str, Any]:
    """Return counts that describe a text: size, lines, paragraphs, share of CJK and full-width characters."""
    chars = len(text)
    cjk = len(_CJK.findall(text))
    fullwidth = sum(1 for ch in text if unicodedata.east_asian_width(ch) == "F")
    lines = text.splitlines()
    return {
        "chars": chars,
        "lines": len(lines),
        "non_blank_lines": sum(1 for line in lines if line.strip()),
        "paragraphs": len([p for p in re.split(r"\n\s*\n", text) if p.strip()]),
        "cjk_chars": cjk,
        "cjk_ratio": round(cjk / chars, 4) if chars else 0.0,
        "fullwidth_chars": fullwidth,
        "article_headings": len(_ARTICLE_HEADING.findall(text)),
    }


class ExtractionStage:
    """Make sure the job has the document's text (re-extracting a stored original if needed) and describe it."""

    name = "extract"

    def run(self, ctx: JobContext) -> None:
        document = ctx.document
        if not ctx.text and document.original:
            from contracts.intake import extraction_limits, text_sanitize

            with document.original.open("rb") as handle:
                ctx.text = text_sanitize(extract(handle.read(), extraction_limits()).text)
        ctx.artifacts["stats"] = {
            **text_statistics(ctx.text),
            "content_type": document.content_type,
            "encoding": document.encoding,
            "size_bytes": document.size_bytes,
        }


class NormalizeStage:
    """Canonical text for matching (width, punctuation, spaces, script, dialect) with its offset map."""

    name = "normalize"

    def run(self, ctx: JobContext) -> None:
        from rules.normalize import normalize

        ctx.normalized = normalize(ctx.text)
        ctx.artifacts["normalize"] = {"report": ctx.normalized.report.as_dict(), "text": ctx.normalized.text}


class RulesStage:
    """Deterministic findings: clauses and statutory risks for contracts, category/routing/urgency for
    tickets, entities and personal data for both."""

    name = "rules"

    def run(self, ctx: JobContext) -> None:
        from contracts.ticket_models import classifier_current
        from rules.clauses import clause_matches, risk_checks
        from rules.entities import ENTITY_PACK, extract_entities
        from rules.tickets.combine import classify_ticket
        from rules.tickets.urgency import urgency_cues

        normalized = ctx.normalized
        assert normalized is not None, "the normalize stage runs first"
        text = normalized.text
        packs: dict[str, str] = {ENTITY_PACK[0]: ENTITY_PACK[1]}
        if ctx.document.kind == "contract":
            clauses = clause_matches(text)
            ctx.findings.extend(clause_finding(normalized, c) for c in clauses)
            ctx.findings.extend(risk_finding(normalized, r) for r in risk_checks(text, clauses))
            if clauses:
                packs["clauses"] = clauses[0].pack_version
        else:
            classifier = classifier_current(ctx.document.organisation.slug)
            classification = classify_ticket(text, classifier)
            urgency = urgency_cues(text)
            ctx.findings.extend(ticket_findings(normalized, classification, urgency))
            packs["tickets"] = classification.pack_version
            packs["tickets_urgency"] = urgency.pack_version
        ctx.findings.extend(entity_finding(normalized, e) for e in extract_entities(text))
        ctx.provenance.setdefault("rule_packs", {}).update(packs)
