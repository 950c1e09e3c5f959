"""A contract's report through the API: Alice submits for Acme (masked), Rita reviews for Acme (in full), Oscar
belongs to Globex and must get nothing of Acme's; the gates decide who may have it."""

from __future__ import annotations

import ctypes
import io
import json
from pathlib import Path
from typing import Any

import docx
import pypdfium2
import pypdfium2.raw as pdfium
import pytest
from PIL import Image
from rest_framework.test import APIClient

from contracts.intake.errors import ExtractionLimits
from contracts.intake.extraction import docx_text
from contracts.intake.office import office_pdf
from contracts.intake.sandbox import converter_status
from contracts.intake.submission import Submission, document_submit
from contracts.legal.report.summary import report_summary, summary_docx
from contracts.legal.report.word import docx_bytes as word_bytes
from contracts.models import AuditEvent, Document, Result
from contracts.pipeline import job_run
from tests.conftest import program_path
from tests.shared_data import shared_file
from tests.word_comments import comment_anchors

pytestmark = pytest.mark.django_db

PHONE = "13812345678"
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
LIMITS = ExtractionLimits(max_unzipped_bytes=10**8, max_pdf_pages=100, max_text_chars=10**7)


def lease_docx() -> bytes:
    """A lease as Word writes one: bold article headings in runs of their own, a landlord's phone number."""
    document = docx.Document()
    document.add_paragraph("房屋租赁合同")
    document.add_paragraph(f"出租方（甲方）：北京某某物业管理有限公司，联系电话 {PHONE}")
    document.add_paragraph("承租方（乙方）：某某科技有限公司")
    for heading, body in (
        ("第一条 租金。", "月租金为人民币5000元，总租金为人民币60000元。"),
        ("第二条 定金。", "乙方应于签订本合同之日起五日内向甲方支付定金人民币20000元。"),
        ("第三条 违约责任。", "任何一方违约的，应向对方支付违约金人民币10000元。"),
        ("第四条 争议解决。", "因本合同发生的争议，双方协商解决；协商不成的，向房屋所在地人民法院起诉。"),
    ):
        paragraph = document.add_paragraph()
        paragraph.add_run(heading).bold = True
        paragraph.add_run(body)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def submitted(actors: Any, *, kind: str = "contract") -> Document:
    if kind == "contract":
        submission = Submission(kind=kind, source="api", data=lease_docx(), original_name="租赁.docx", title="租赁合同")
    else:
        submission = Submission(kind=kind, source="api", text="小区楼下餐馆油烟太大，多次反映至今未解决。")
    outcome = document_submit(organisation=actors.acme, submission=submission)
    job_run(outcome.job.pk, "report-test")
    outcome.document.refresh_from_db()
    return outcome.document


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def report_url(document: Document, file_format: str = "docx") -> str:
    return f"/api/v1/documents/{document.pk}/report.{file_format}"


def result_changed(document: Document, **changes: Any) -> None:
    """Store the latest result's data with `changes` (a gate decision, a finding, a reviewer)."""
    result = document.latest_result()
    assert result is not None
    Result.objects.filter(pk=result.pk).update(data={**result.data, **changes})


def expected_anchors(findings: list[dict[str, Any]], text: str) -> list[str]:
    """The words each commented finding points at: its span (else its first evidence span), white space trimmed; a
    finding with no span (a playbook's missing clause) has no place to be commented at."""
    anchors = []
    for finding in findings:
        if finding["kind"] == "entity" or not (finding.get("span") or finding.get("spans")):
            continue
        start, end = finding.get("span") or finding["spans"][0]
        anchors.append(text[start:end].strip())
    return sorted(anchors)


def test_reviewer_gets_the_contracts_own_docx_with_each_comment_at_its_findings_text(actors: Any) -> None:
    document = submitted(actors)
    answer = session(actors.rita).get(report_url(document))
    assert answer.status_code == 200 and answer["Content-Type"] == DOCX_TYPE
    assert answer["X-DocGate-Report-Release"] == "ready"
    word = docx.Document(io.BytesIO(answer.content))
    findings = document.latest_result().data["findings"]  # type: ignore[union-attr]
    anchors = comment_anchors(word)
    assert {"clause", "risk"} <= {f["kind"] for f in findings}
    assert sorted(anchor for _, anchor in anchors.values()) == expected_anchors(findings, document.text)
    risk = next(f for f in findings if f["kind"] == "risk")
    assert any(risk["message"] in comment and risk["basis"] in comment for comment, _ in anchors.values())
    assert word.paragraphs[0].text == "合同审查报告：租赁合同"  # the summary comes first
    assert docx_text(answer.content, LIMITS).endswith(document.text)  # then the contract, word for word
    assert any(run.bold and run.text == "第一条 租金。" for p in word.paragraphs for run in p.runs)  # its own runs


def test_submitter_gets_the_masked_text_with_comments_at_the_same_places(actors: Any) -> None:
    document = submitted(actors)
    answer = session(actors.alice).get(report_url(document))
    assert answer.status_code == 200
    text = docx_text(answer.content, LIMITS)
    assert PHONE not in text and "联系电话 " + "＊" * len(PHONE) in text
    runs = [run for p in docx.Document(io.BytesIO(answer.content)).paragraphs for run in p.runs]
    assert not any(run.bold and "第一条" in run.text for run in runs)  # written from the masked text, not a copy
    masked = text[text.index("房屋租赁合同") :]
    anchors = comment_anchors(docx.Document(io.BytesIO(answer.content)))
    findings = document.latest_result().data["findings"]  # type: ignore[union-attr]
    assert sorted(anchor for _, anchor in anchors.values()) == expected_anchors(findings, masked)


def test_outsider_from_another_organisation_gets_404(actors: Any) -> None:
    document = submitted(actors)
    for file_format in ("docx", "pdf"):
        answer = session(actors.oscar).get(report_url(document, file_format))
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"


def test_a_ticket_has_no_report(actors: Any) -> None:
    answer = session(actors.rita).get(report_url(submitted(actors, kind="ticket")))
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "no_report"


def test_each_download_is_audited_with_who_took_which_version_masked_or_not(actors: Any, acme_api: Any) -> None:
    document = submitted(actors)
    assert session(actors.rita).get(report_url(document)).status_code == 200
    assert session(actors.alice).get(report_url(document)).status_code == 200
    assert acme_api.get(report_url(document)).status_code == 200
    assert session(actors.oscar).get(report_url(document)).status_code == 404
    events = AuditEvent.objects.filter(action="report.downloaded", object_id=str(document.pk)).order_by("id")
    assert [(e.actor_user, e.actor_api_key is not None, e.after) for e in events] == [
        (actors.rita, False, {"format": "docx", "result_version": 1, "release": "ready", "masked": False}),
        (actors.alice, False, {"format": "docx", "result_version": 1, "release": "ready", "masked": True}),
        (None, True, {"format": "docx", "result_version": 1, "release": "ready", "masked": False}),
    ]


def test_a_report_held_for_review_goes_to_reviewers_until_the_result_is_reviewed(actors: Any, acme_api: Any) -> None:
    document = submitted(actors)
    gate = document.latest_result().data["gate"]  # type: ignore[union-attr]
    result_changed(document, gate={**gate, "decision": "review"})
    for caller in (session(actors.alice), acme_api):
        answer = caller.get(report_url(document))
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "report_pending_review"
    answer = session(actors.rita).get(report_url(document))
    assert answer.status_code == 200 and answer["X-DocGate-Report-Release"] == "pending_review"
    result_changed(document, reviewed_by="rita", reviewed_at="2026-12-02T10:00:00+00:00")
    assert session(actors.alice).get(report_url(document)).status_code == 200


def test_a_report_whose_comments_would_give_out_contact_details_is_withheld_from_everyone(actors: Any) -> None:
    document = submitted(actors)
    findings = document.latest_result().data["findings"]  # type: ignore[union-attr]
    risk = next(f for f in findings if f["kind"] == "risk")
    risk["message"] += "，请联系 lawyer@example.com 协商"  # the outgoing gate blocks an e-mail address DocGate writes
    result_changed(document, findings=findings)
    answer = session(actors.rita).get(report_url(document))
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "report_withheld"


def test_a_contract_the_input_gate_blocked_has_no_report(actors: Any) -> None:
    document = submitted(actors)
    gate = document.latest_result().data["gate"]  # type: ignore[union-attr]
    result_changed(document, gate={**gate, "decision": "block"})
    answer = session(actors.rita).get(report_url(document, "pdf"), HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "report_withheld"
    assert answer.json()["error"]["message"].startswith("安全闸门拦截了这份报告")


def test_the_summary_pdf_is_one_page_made_by_libreoffice(actors: Any) -> None:
    program_path("soffice", "libreoffice-writer-nogui")
    document = submitted(actors)
    answer = session(actors.rita).get(report_url(document, "pdf"))
    assert answer.status_code == 200 and answer["Content-Type"] == "application/pdf"
    pdf = pypdfium2.PdfDocument(answer.content)
    pages, page = len(pdf), pdf[0].get_textpage().get_text_range()
    pdf.close()
    assert pages == 1
    assert "需要决定的事项" in page and "合同解除/终止" in page and "合同同时约定违约金和定金" in page


def test_the_pdf_is_refused_with_503_where_libreoffice_is_missing(actors: Any, monkeypatch: Any, tmp_path: Any) -> None:
    document = submitted(actors)
    monkeypatch.setenv("PATH", str(tmp_path))  # no soffice on this PATH
    converter_status.cache_clear()
    try:
        answer = session(actors.rita).get(report_url(document, "pdf"))
    finally:
        converter_status.cache_clear()
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "converter_missing"
    assert "libreoffice" in answer.json()["error"]["message"]


def page_notes(page: pypdfium2.PdfPage) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The text and rectangle (left, bottom, right, top) of each text annotation (a comment) on a PDF page."""
    notes = []
    for index in range(pdfium.FPDFPage_GetAnnotCount(page.raw)):
        annotation = pdfium.FPDFPage_GetAnnot(page.raw, index)
        try:
            if pdfium.FPDFAnnot_GetSubtype(annotation) != pdfium.FPDF_ANNOT_TEXT:
                continue
            size = pdfium.FPDFAnnot_GetStringValue(annotation, b"Contents", None, 0)
            buffer = ctypes.create_string_buffer(size)
            pdfium.FPDFAnnot_GetStringValue(
                annotation, b"Contents", ctypes.cast(buffer, ctypes.POINTER(pdfium.FPDF_WCHAR)), size
            )
            rect = pdfium.FS_RECTF()
            pdfium.FPDFAnnot_GetRect(annotation, rect)
            notes.append((buffer.raw[: size - 2].decode("utf-16-le"), (rect.left, rect.bottom, rect.right, rect.top)))
        finally:
            pdfium.FPDFPage_CloseAnnot(annotation)
    return notes


def test_the_exported_docx_opens_in_libreoffice_and_a_page_shows_its_comment(actors: Any, tmp_path: Path) -> None:
    """LibreOffice reads the report and prints it to PDF with its comments (in the margin where it can, and as
    notes at their anchors); the contract's page is rendered to PNG and its risk comment is found on it."""
    program_path("soffice", "libreoffice-writer-nogui")
    document = submitted(actors)
    report = session(actors.rita).get(report_url(document)).content
    pdf = pypdfium2.PdfDocument(office_pdf(report, timeout_s=120, comments=True))
    risk = next(f for f in document.latest_result().data["findings"] if f["kind"] == "risk")  # type: ignore[union-attr]
    try:
        assert "需要决定的事项" in pdf[0].get_textpage().get_text_range()  # the summary page
        for page in list(pdf)[1:]:  # the contract's pages (the summary quotes the risk too)
            text, notes = page.get_textpage().get_text_range(), page_notes(page)
            found = [rect for note, rect in notes if risk["message"] in note] or (
                [(0.0, 0.0, page.get_width(), page.get_height())] if risk["message"] in text else []
            )
            if found:
                break
        else:
            raise AssertionError("the risk comment is on no page of the PDF")
        assert "第三条 违约责任" in text  # the page of the contract the comment belongs to
        scale = 2
        page.render(scale=scale).to_pil().save(tmp_path / "page.png")
        height = page.get_height()
    finally:
        pdf.close()
    assert Image.open(tmp_path / "page.png").format == "PNG"
    image = Image.open(tmp_path / "page.png").convert("L")
    left, _, right, top = found[0]
    # LibreOffice gives a note a point-wide rectangle at its anchor and draws its icon (about 20 pt) from there.
    box = (
        int(left * scale),
        int((height - top) * scale),
        int((max(right, left + 20)) * scale),
        int((height - top + 20) * scale),
    )
    darkest, _ = image.crop(box).getextrema()
    assert isinstance(darkest, int) and darkest < 128  # the comment is drawn where it is anchored, not blank paper


def test_public_contracts_written_as_docx_get_every_comment_at_its_findings_words(actors: Any) -> None:
    """Four public contracts of growing length, each line split over a bold and a plain run as Word would leave it:
    the report is a copy of each file, and every comment's range holds its finding's words."""
    rows = sorted(
        (json.loads(line) for line in shared_file("contracts/public.jsonl").open()), key=lambda r: len(r["text"])
    )
    for row in rows[:: max(1, len(rows) // 4)][:4]:
        document = docx.Document()
        for line in row["text"].split("\n"):
            paragraph = document.add_paragraph()
            paragraph.add_run(line[: len(line) // 2]).bold = True
            paragraph.add_run(line[len(line) // 2 :])
        data = io.BytesIO()
        document.save(data)
        submission = Submission(
            kind="contract", source="api", data=data.getvalue(), original_name="c.docx", title=row["id"]
        )
        outcome = document_submit(organisation=actors.acme, submission=submission)
        job_run(outcome.job.pk, "report-test")
        outcome.document.refresh_from_db()
        answer = session(actors.rita).get(report_url(outcome.document))
        word = docx.Document(io.BytesIO(answer.content))
        assert any(run.bold for p in word.paragraphs[-3:] for run in p.runs)  # the file's own runs: a copy
        findings = outcome.document.latest_result().data["findings"]  # type: ignore[union-attr]
        anchors = sorted(anchor for _, anchor in comment_anchors(word).values())
        assert anchors and anchors == expected_anchors(findings, outcome.document.text)


def test_the_summary_of_a_contract_with_many_long_points_still_fits_one_page() -> None:
    program_path("soffice", "libreoffice-writer-nogui")
    findings: list[dict[str, Any]] = [
        {
            "kind": "risk",
            "severity": "warning",
            "message": f"违约金约为合同总价的百分之{n}，明显高于可能造成的损失，对方可请求人民法院予以适当减少，"
            "并应当就实际损失承担举证责任",
            "basis": "民法典第585条",
        }
        for n in range(30, 60)
    ]
    findings += [{"kind": "clause", "label": label, "status": "blank"} for label in ("争议解决", "合同期限", "验收")]
    summary = report_summary(
        findings, title="合同审查报告：某某有限公司与某某有限公司技术开发合同", facts=["结果版本 v1。"]
    )
    pdf = pypdfium2.PdfDocument(office_pdf(word_bytes(summary_docx(summary)), timeout_s=120))
    pages, text = len(pdf), pdf[0].get_textpage().get_text_range()
    pdf.close()
    assert (
        pages == 1 and f"另有 {summary.more_decisions} 项" in text and summary.more_decisions == 30 + 3 + 3 - 10
    )  # risks, blank, missing
