"""Build a contract's report (.docx with comments and a summary page; the summary as a PDF) and decide whether it
may go out.

What the caller may see decides what the report holds: who sees personal data gets a copy of the contract's own
.docx (or its text when the original is a PDF, a scan or another format); who sees it masked gets the masked text
written paragraph by paragraph, never the original file, whose runs, headers, pictures and properties masking
cannot reach.

What DocGate wrote (the summary and every comment) passes the outgoing gate, as a suggested response does, and the
result's input gate still counts, since the report carries the contract's text out: `contracts.gate.response_status`
of the two decides. Withheld (either blocks): nobody gets it. Pending review: reviewers and admins do, and everyone
once a reviewer has finalized the result (a person has then read what the findings say). Ready: every member.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.findings import finding_list
from contracts.gate import GateDecision, gate_decide, response_status
from contracts.intake.errors import ExtractionError
from contracts.intake.extraction import DOCX
from contracts.intake.office import office_pdf
from contracts.legal.report.comments import ReportComment, report_comments
from contracts.legal.report.summary import ReportSummary, report_summary, summary_docx, summary_first
from contracts.legal.report.word import comments_anchor, docx_bytes, docx_copy, docx_from_text
from contracts.models import ApiKey, Document, Result
from contracts.refusals import Refused
from contracts.tenancy.personal_data import result_data_masked, text_masked

REPORT_KINDS = ("contract",)


class ReportRefused(Refused):
    """The report cannot be made or may not go out to this caller."""

    status = 403


@dataclass(frozen=True)
class ContractReport:
    """A built report: the Word file, the summary alone (for the PDF), what its comments are and the gate's say."""

    docx: bytes
    summary: ReportSummary
    comments: list[ReportComment]
    anchored: int
    from_original: bool
    gate: GateDecision
    release: str  # ready | pending_review | withheld (`contracts.gate.response_status`)


def report_result(document: Document) -> Result:
    """The result a report is made of: the document's latest; refused for a kind without reports or no result."""
    if document.kind not in REPORT_KINDS:
        raise ReportRefused("no_report", _("Reports are made for contracts only."), 404)
    result = document.latest_result()
    if result is None:
        raise ReportRefused("result_not_ready", _("The document has no result yet."), 404)
    return result


def _facts(result: Result, data: dict[str, Any], anchored: int) -> list[str]:
    reviewed = (
        "已人工审核"
        if data.get("reviewed_by")
        else ("初步结果（模型尚未回答）" if not result.final else "未经人工审核")
    )
    return [f"结果版本 v{result.version}，{reviewed}；正文批注 {anchored} 条。"]


def contract_report_build(*, document: Document, result: Result, sees_personal_data: bool) -> ContractReport:
    """The report of `result` as this caller may see it, with the outgoing gate's decision on what DocGate wrote."""
    stored = result.data or {}
    data = dict(stored) if sees_personal_data else result_data_masked(stored)
    findings = finding_list(data, "findings")
    text = document.text if sees_personal_data else text_masked(document.text, finding_list(stored, "findings"))
    comments = report_comments(findings, text)
    word = None
    if sees_personal_data and document.original and document.content_type == DOCX:
        with document.original.open("rb") as handle:
            word = docx_copy(handle.read(), text)
    from_original = word is not None
    word = word if word is not None else docx_from_text(text)
    anchored = comments_anchor(word, comments)
    title = f"合同审查报告：{document.title or document.original_name or document.pk}"
    summary = report_summary(findings, title=title, facts=_facts(result, data, anchored))
    summary_first(word, summary)
    written = "\n".join([*summary.facts, *summary.decisions, *summary.found, *(c.text for c in comments)])
    gate = gate_decide(text=written, kind="outgoing", organisation=document.organisation.slug, source=text)
    input_gate = stored.get("gate")
    if data.get("reviewed_by"):
        release = response_status(gate, gate)  # a reviewer has settled the input's gate
    elif isinstance(input_gate, dict):
        release = response_status(GateDecision.from_dict(input_gate), gate)
    else:
        release = response_status(gate, gate) if gate.decision == "block" else "pending_review"
    return ContractReport(docx_bytes(word), summary, comments, anchored, from_original, gate, release)


def report_release_check(report: ContractReport, *, is_reviewer: bool, reviewed: bool) -> None:
    """Refuse a report the gates withhold, and one held for review to all but reviewers until it is reviewed."""
    if report.release == "withheld":
        raise ReportRefused(
            "report_withheld",
            _("The safety gate blocks this report: %(reasons)s")
            % {"reasons": "; ".join(report.gate.reasons) or _("the contract's own text was blocked")},
        )
    if report.release == "pending_review" and not (is_reviewer or reviewed):
        raise ReportRefused(
            "report_pending_review",
            _("The safety gate holds this report for review: a reviewer can download it, or finalize the result."),
        )


def summary_pdf(report: ContractReport) -> bytes:
    """The summary page as a PDF, by LibreOffice; refused with 503 where it is missing or too slow."""
    try:
        return office_pdf(docx_bytes(summary_docx(report.summary)), timeout_s=settings.DOCGATE_CONVERSION_TIMEOUT_S)
    except ExtractionError as exc:
        raise ReportRefused(exc.code, exc.message, 503) from None


@dataclass(frozen=True)
class ReportFile:
    """A report ready to download: its bytes, type, file name and whether the gates released it to all."""

    body: bytes
    content_type: str
    filename: str
    release: str


def report_download(
    *,
    document: Document,
    file_format: str,
    sees_personal_data: bool,
    is_reviewer: bool,
    user: Any = None,
    api_key: ApiKey | None = None,
) -> ReportFile:
    """The report of the document's latest result in `file_format` (docx, pdf) for this caller, its download
    audited (`report.downloaded`: the version, the format, masked or not); raise ReportRefused for a document
    without one, one the gates keep from the caller, or a PDF that cannot be made here."""
    result = report_result(document)
    report = contract_report_build(document=document, result=result, sees_personal_data=sees_personal_data)
    report_release_check(report, is_reviewer=is_reviewer, reviewed=bool((result.data or {}).get("reviewed_by")))
    name = f"docgate-report-{document.pk}-v{result.version}"
    if file_format == "pdf":
        found = ReportFile(summary_pdf(report), "application/pdf", f"{name}.pdf", report.release)
    else:
        found = ReportFile(report.docx, DOCX, f"{name}.docx", report.release)
    audit_record(
        organisation=document.organisation,
        action="report.downloaded",
        obj=document,
        user=user,
        api_key=api_key,
        after={
            "format": file_format,
            "result_version": result.version,
            "release": report.release,
            "masked": not sees_personal_data,
        },
    )
    return found
