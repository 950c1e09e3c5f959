"""Template filters for the portal: translated names of states, kinds, roles and review reasons; masked previews."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from contracts.legal.term_values import term_value_text
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
    "playbook": _("Playbook"),
    # Playbook grades (rules.playbook)
    "acceptable": _("Acceptable"),
    "negotiate": _("Negotiate"),
    "escalate": _("Escalate"),
    "entity": _("Entity"),
    "ticket_category": _("Category"),
    "urgency": _("Urgency"),
    "repeat_case": _("Repeat case"),
    "first": _("First ticket"),
    "repeat": _("Repeat found by DocGate"),
    "stipulated": _("Stipulated"),
    "blank": _("Blank template slot"),
    "negated": _("Excluded"),
    "referenced": _("Referenced only"),
    "term": _("Key term"),
    # Contract types (rules.clauses.statutes.contract_type)
    "lease": _("Lease contract"),
    "loan": _("Loan contract"),
    "labour": _("Labour contract"),
    "sale": _("Sale contract"),
    "general": _("Other contract"),
    "agreed": _("Agreed"),
    "present": _("present"),
    "missing": _("missing"),
    # A reply not fit to send (rules.tickets.reply_check)
    "reply_no_department": _("Reply names no department"),
    "reply_no_next_step": _("Reply says nothing of what will be done"),
    "reply_no_time": _("Reply gives no time"),
    "reply_boilerplate": _("Reply could answer any ticket"),
    "reply_wrong_place": _("Reply names another place"),
    "reply_wrong_category": _("Reply files it under another category"),
    "reply_contact_leak": _("Reply gives personal data or others' contact details"),
    # How asking the model went (GateDecision.llm_status)
    "used": _("Model answered"),
    "off": _("Not asked"),
    "invalid_output": _("No usable answer"),
    "unavailable": _("Unavailable"),
    # Entity labels (rules.entities)
    "PARTY": _("Party"),
    "PERSON": _("Person"),
    "DATE": _("Date"),
    "DURATION": _("Duration"),
    "MONEY": _("Amount"),
    "PERCENT": _("Percentage"),
    "ADDRESS": _("Address"),
    "REGION": _("Region"),
    "PHONE": _("Phone number"),
    "EMAIL": _("E-mail"),
    "ID_NUMBER": _("ID number"),
    "BANK_CARD": _("Bank card"),
    # Urgency levels (rules.tickets.urgency)
    "normal": _("Normal"),
    "high": _("High"),
    "urgent": _("Urgent"),
    # Pipeline stages (result provenance)
    "extract": _("Extraction"),
    "normalize": _("Normalization"),
    "rules": _("Rules"),
    "gate": _("Safety gate"),
    "plan": _("Plan"),
    "merge": _("Merge"),
    "respond": _("Response"),
    # Audit events
    "document.submitted": _("Document submitted"),
    "job.done": _("Job done"),
    "job.needs_review": _("Job sent to review"),
    "job.failed": _("Job failed"),
    "job.llm_rerun": _("Sent back to the model"),
    "review.opened": _("Review opened"),
    "review.claimed": _("Task claimed"),
    "review.claim_taken_over": _("Claim taken over"),
    "review.released": _("Task released"),
    "review.reassigned": _("Task reassigned"),
    "review.finding_decided": _("Finding decided"),
    "review.response_edited": _("Response edited"),
    "review.finalized": _("Review finalized"),
    "review.withdrawn": _("Review withdrawn"),
    "api_key.issued": _("API key issued"),
    "api_key.revoked": _("API key revoked"),
    "membership.added": _("Member added"),
    "membership.invited": _("Member invited"),
    "membership.removed": _("Member removed"),
    "membership.role_changed": _("Role changed"),
    "webhook.configured": _("Webhook configured"),
    "webhook.redelivery_requested": _("Webhook redelivery requested"),
    "ticket.dispatched": _("Dispatched"),
    "ticket.answered": _("Answered"),
    "ticket.closed": _("Closed"),
    "ticket.returned": _("Returned"),
    "ticket.due_soon": _("Due soon"),
    "ticket.overdue": _("Overdue"),
    "case.merge": _("Cases merged"),
    "case.split": _("Case split"),
    "report.downloaded": _("Report downloaded"),
    "model.activated": _("Model activated"),
    "model.rejected": _("Model not activated"),
    "model.training_failed": _("Model training failed"),
    "model.rolled_back": _("Model rolled back"),
    "model.retrain_requested": _("Retraining requested"),
    "ticket_department.changed": _("Department changed"),
    "ticket_department.deleted": _("Department deleted"),
    "contract_playbook.changed": _("Playbook changed"),
    "contract_playbook.deleted": _("Playbook deleted"),
    "work_calendar_year.changed": _("Work calendar changed"),
}

# Key terms of a contract (the legal desk's `term` findings; their labels are rules.contract_terms kinds).
TERM_LABELS: dict[str, Any] = {
    "party": _("Party"),
    "signing_date": _("Signing date"),
    "effective_date": _("Effective date"),
    "expiry_date": _("Expiry date"),
    "term": _("Contract term"),
    "renewal": _("Renewal"),
    "price": _("Price"),
    "payment": _("Payment schedule"),
    "deposit": _("Deposit (定金)"),
    "penalty": _("Liquidated damages"),
    "late_interest": _("Late-payment interest"),
    "notice_period": _("Notice period"),
    "governing_law": _("Governing law"),
    "forum": _("Forum"),
    "probation": _("Probation"),
    "non_compete": _("Non-compete"),
}


@register.filter
def term_label(value: Any) -> Any:
    """The translated name of a key-term kind (price → 价款)."""
    return TERM_LABELS.get(str(value), value)


@register.filter
def term_value(finding: Any) -> str:
    """A key term's value as a lawyer reads it (¥100,000.00（含税）, 3 年, 日万分之五)."""
    return term_value_text(finding) if isinstance(finding, dict) else ""


@register.filter
def label(value: Any) -> Any:
    """The translated name of a DocGate code (`gate_block:detail` shows as its reason and detail)."""
    code, _sep, detail = str(value).partition(":")
    name = LABELS.get(code)
    if name is None:
        return value
    return f"{name}: {detail}" if detail else name


@register.filter
def labels(values: Any) -> list[Any]:
    """`label` of each item of a list (stage names, reasons)."""
    return [label(value) for value in values or []]


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
