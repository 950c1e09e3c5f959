"""PDF text through PDFium: reading order, fake-bold overlays collapsed, protection and broken files refused."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader, PdfWriter

from contracts.analysis import document_analyze
from contracts.intake.extraction import ExtractionError, ExtractionLimits
from contracts.intake.pdf import pdf_page_texts
from tests.files import cjk_pdf_bytes, pdf_bytes

LIMITS = ExtractionLimits(max_unzipped_bytes=10_000_000, max_pdf_pages=50, max_text_chars=1_000_000)


def _with_stream(stream: bytes) -> bytes:
    """A one-page PDF (Helvetica) whose page draws `stream`."""
    base = pdf_bytes(["X"])
    old = b"BT\n/F1 12 Tf\n72 720 Td\n(X) Tj\n0 -16 Td\nET"
    assert old in base
    return base.replace(old, stream).replace(b"/Length %d" % len(old), b"/Length %d" % len(stream))


def _protected(user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_bytes(["Lease agreement"]))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_lines_come_in_reading_order_with_newlines() -> None:
    assert pdf_page_texts(pdf_bytes(["Article 1 Term", "Article 2 Payment"]), LIMITS) == [
        "Article 1 Term\nArticle 2 Payment"
    ]


def test_fake_bold_glyphs_drawn_twice_are_read_once() -> None:
    # Each glyph drawn twice, the second 0.4 pt to the right: how fake bold is rendered. pypdf reads "LLeeaassee".
    pairs = b" ".join(b"(%s) Tj 0.4 0 Td (%s) Tj 7 0 Td" % (c, c) for c in (b"L", b"e", b"a", b"s", b"e"))
    doubled = _with_stream(b"BT /F1 12 Tf 72 720 Td " + pairs + b" ET")
    assert PdfReader(io.BytesIO(doubled)).pages[0].extract_text() == "LLeeaassee"
    assert pdf_page_texts(doubled, LIMITS) == ["Lease"]


def test_a_password_protected_pdf_is_refused_but_an_owner_only_protection_is_read() -> None:
    with pytest.raises(ExtractionError) as refused:
        pdf_page_texts(_protected("open-sesame"), LIMITS)
    assert refused.value.code == "encrypted_pdf"
    assert pdf_page_texts(_protected(""), LIMITS) == ["Lease agreement"]


@pytest.mark.parametrize("data", [b"%PDF-1.4\nnot really", pdf_bytes(["x"])[:60]], ids=["garbage", "truncated"])
def test_broken_pdfs_are_refused_with_a_code(data: bytes) -> None:
    with pytest.raises(ExtractionError) as refused:
        pdf_page_texts(data, LIMITS)
    assert refused.value.code == "invalid_pdf"


def test_more_pages_than_the_limit_are_refused() -> None:
    writer = PdfWriter()
    for _ in range(LIMITS.max_pdf_pages + 1):
        writer.add_blank_page(width=72, height=72)
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(ExtractionError) as refused:
        pdf_page_texts(out.getvalue(), LIMITS)
    assert refused.value.code == "too_many_pages"


def test_chinese_text_is_read_exactly_page_by_page() -> None:
    pages = [
        ["第一条 租赁期限", "租赁期限自2024年1月1日起至2026年12月31日止。"],
        ["第二条 违约责任", "乙方逾期支付租金的，应支付违约金。"],
    ]
    assert pdf_page_texts(cjk_pdf_bytes(pages), LIMITS) == ["\n".join(lines) for lines in pages]


def test_a_pdf_written_with_kangxi_radicals_matches_its_clauses() -> None:
    # Some exports put ⽅ ⼄ ⼒ ⾦ (Kangxi Radicals) in the text layer where 方 乙 力 金 are meant.
    lines = [
        "第一条 违约责任",
        "任何一\u2f45违约的，应向守约\u2f45支付违约\u2fa6人民币五万元。",
        "第二条 不可抗\u2f12",
        "因不可抗\u2f12致使合同不能履行的，遭受不可抗\u2f12的一\u2f45应在十五日内通知对\u2f45。",
    ]
    data = cjk_pdf_bytes([lines])
    assert "\u2f45" in pdf_page_texts(data, LIMITS)[0], "the text layer really carries the radicals"
    result = document_analyze(data, name="loan.pdf", kind="contract")
    labels = {f["label"] for f in result["findings"] if f["kind"] == "clause" and f["status"] == "stipulated"}
    assert {"违约金/违约责任", "不可抗力"} <= labels
    assert result["normalization"]["ideographs_folded"] == sum(
        line.count("\u2f45") + line.count("\u2fa6") + line.count("\u2f12") for line in lines
    )
