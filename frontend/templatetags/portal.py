"""Template filters for the portal: translated names of states, kinds, roles and review reasons; masked previews."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from contracts.tenancy.personal_data import preview_masked

register = template.Library()

PREVIEW_CHARS = 40  # what a job row shows of an untitled document's text (truncatechars:40 in _job_rows.html)

LABELS: dict[str, Any] = {
    "queued": _("Queued"),
    "running": _("Running"),
    "done": _("Done"),
    "needs_review": _("Needs review"),
    "provisional": _("Provisional"),
    "failed": _("Failed"),
    "open": _("Open"),
    "claimed": _("Claimed"),
    "finalized": _("Finalized"),
    "contract": _("Contract"),
    "ticket": _("Ticket"),
    "submitter": _("Submitter"),
    "reviewer": _("Reviewer"),
    "admin": _("Admin"),
    "allow": _("Allow"),
    "review": _("Review"),
    "block": _("Block"),
    "gate_block": _("Safety gate blocked"),
    "gate_review": _("Safety gate asks for review"),
    "output_gate_review": _("Outgoing text needs review"),
    "conflict": _("Rules and LLM disagree"),
    "low_confidence": _("Low confidence"),
    "routing_uncertain": _("Dispatcher to route"),
    "llm_unavailable": _("LLM unavailable"),
    "degraded": _("Degraded (rules only)"),
    "qa_sample": _("QA sample"),
    "ocr_low_confidence": _("OCR unsure of a page"),
    "approve": _("Approved"),
    "correct": _("Corrected"),
    "reject": _("Rejected"),
    "approved": _("Approved"),
    "corrected": _("Corrected"),
    "rejected": _("Rejected"),
    "unreviewed": _("Unreviewed"),
    "ready": _("Ready"),
    "pending_review": _("Pending review"),
    "withheld": _("Withheld"),
    "reviewed": _("Reviewed"),
    "rule": _("Rule"),
    "llm": _("LLM"),
    "both": _("Rule + LLM"),
    "clause": _("Clause"),
    "risk": _("Risk"),
    "entity": _("Entity"),
    "ticket_category": _("Category"),
    "urgency": _("Urgency"),
    "stipulated": _("Stipulated"),
    "blank": _("Blank template slot"),
    "negated": _("Excluded"),
    "referenced": _("Referenced only"),
}


@register.filter
def label(value: Any) -> Any:
    """The translated name of a DocGate code (`gate_block:detail` shows as its reason and detail)."""
    code, _sep, detail = str(value).partition(":")
    name = LABELS.get(code)
    if name is None:
        return value
    return f"{name}: {detail}" if detail else name


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    """mapping[key] for templates, None when absent."""
    try:
        return mapping.get(key)
    except AttributeError:
        return None


@register.filter
def masked_text_preview(job: Any) -> str:
    """The start of a job's document text with personal data masked, by the findings of its latest result where
    the job list loaded them (`masking_findings`)."""
    masked = preview_masked(job.document.text, getattr(job, "masking_findings", None) or [], PREVIEW_CHARS + 1)
    return Truncator(masked).chars(PREVIEW_CHARS)  # as truncatechars:40 shows a title: "…" where there is more
