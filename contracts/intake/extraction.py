"""Text extraction from uploaded bytes: type decided by content, never by the file name."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from contracts.intake.archives import (
    archive_member_read,
    archive_members,
    archive_open,
    xml_parsed,
    xml_prolog_check,
)
from contracts.intake.encodings import AmbiguousEncoding, Decoded, legacy_decode, utf16_without_bom
from contracts.intake.errors import Extracted, ExtractionError, ExtractionLimits
from contracts.intake.ocr import IMAGE_TYPES, ocr_text, sniff_image
from contracts.intake.office import OFFICE_TYPES, office_check, office_text, sniff_office
from contracts.intake.pdf import pdf_check, pdf_pages
from contracts.intake.sandbox import converter_require, converter_status

WORD_NS = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
DOCUMENT_XML = "word/document.xml"
# Control characters other than tab, newline, carriage return and form feed mark binary data, not text.
_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PDF = "application/pdf"
TEXT = "text/plain"
# The file names people choose what intake reads by (it goes by content, never by the name), grouped by the
# converter each group needs (None: read in process; a PDF's scanned pages need `ocr`).
FILE_EXTENSIONS: dict[str | None, tuple[str, ...]] = {
    None: (".txt", ".docx", ".pdf"),
    "office": (".doc", ".wps", ".rtf", ".odt"),
    "ocr": (".png", ".jpg", ".jpeg", ".tif", ".tiff"),
}


def sniff_content_type(data: bytes) -> str:
    """Return the MIME type recognised from the leading bytes: PDF, an image, a legacy or open Office document,
    DOCX, otherwise plain text."""
    if data.startswith(b"%PDF-"):
        return PDF
    recognised = sniff_image(data) or sniff_office(data)
    if recognised is not None:
        return recognised
    if data.startswith(b"PK\x03\x04"):
        return DOCX
    return TEXT


_BINARY_MESSAGE = (
    "The file contains binary data DocGate does not read. Send .txt, .docx, .doc, .rtf, .odt, .pdf or an image."
)


def text_decode(data: bytes) -> Decoded:
    """Decode plain text (UTF-8, UTF-16 with or without BOM, GB18030, Big5-HKSCS; the rule is in
    `contracts.intake.encodings`); raise ExtractionError for binary data, undecodable or ambiguous bytes."""
    if data.startswith(b"\xef\xbb\xbf"):
        decoded = _strict(data, "utf-8-sig", "utf-8")
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        decoded = _strict(data, "utf-16", "utf-16")
    elif b"\x00" in data:
        # NUL bytes mean UTF-16 without a byte-order mark, or binary data (an image, an executable, a database).
        codec = utf16_without_bom(data)
        decoded = _strict(data, codec, codec) if codec else None
        if decoded is None:
            raise ExtractionError("binary_content", _BINARY_MESSAGE)
    else:
        decoded = _strict(data, "utf-8", "utf-8")
        if decoded is None:
            try:
                decoded = legacy_decode(data)
            except AmbiguousEncoding as exc:
                first, second = exc.encodings
                raise ExtractionError(
                    "ambiguous_encoding",
                    f"The text reads equally well as {first} and as {second}; re-save it as UTF-8.",
                ) from exc
    if decoded is None:
        raise ExtractionError(
            "undecodable_text",
            "The text is not valid UTF-8, UTF-16, GB18030 or Big5-HKSCS. Re-save it as UTF-8.",
        )
    if _BINARY_CONTROL.search(decoded.text):
        raise ExtractionError("binary_content", _BINARY_MESSAGE)
    return decoded


def _strict(data: bytes, codec: str, name: str) -> Decoded | None:
    try:
        return Decoded(data.decode(codec), name, 1.0)
    except UnicodeDecodeError:
        return None


@contextmanager
def docx_opened(data: bytes, limits: ExtractionLimits) -> Iterator[zipfile.ZipFile]:
    """Open a .docx archive and check it cheaply: a valid zip, within the expansion limit, with a document."""
    archive = archive_open(
        data, code="invalid_docx", message="The file looks like a .docx but is not a valid zip archive."
    )
    with archive:
        archive_members(archive, limit=limits.max_unzipped_bytes, what=".docx")
        if DOCUMENT_XML not in archive.namelist():
            raise ExtractionError("invalid_docx", "The zip archive is not a Word document (no word/document.xml).")
        yield archive


def docx_text(data: bytes, limits: ExtractionLimits) -> str:
    """Extract paragraph text from a .docx; reject archives that are broken or expand too far, and XML that
    declares a DTD (in any encoding)."""
    with docx_opened(data, limits) as archive:
        xml = archive_member_read(
            archive, DOCUMENT_XML, limit=limits.max_unzipped_bytes, code="invalid_docx", what="Word document"
        )
    root = xml_parsed(xml, code="invalid_docx", what="Word document")
    paragraphs: list[str] = []
    for paragraph in root.iter(f"{WORD_NS}p"):
        parts: list[str] = []
        for node in paragraph.iter():
            if node.tag == f"{WORD_NS}t" and node.text:
                parts.append(node.text)
            elif node.tag == f"{WORD_NS}tab":
                parts.append("\t")
            elif node.tag in (f"{WORD_NS}br", f"{WORD_NS}cr"):
                parts.append("\n")
        paragraphs.append("".join(parts))
    return "\n".join(paragraphs)


def intake_check(data: bytes, limits: ExtractionLimits) -> Extracted | None:
    """The cheap checks intake makes before storing an upload; the text of a plain-text file, None for a file
    whose text the worker extracts (`extract`). Raises ExtractionError for what can be refused at once, including
    a type whose converter this machine lacks."""
    if not data:
        raise ExtractionError("empty_file", "The file is empty.")
    content_type = sniff_content_type(data)
    if content_type == PDF:
        pdf_check(data, limits)
    elif content_type == DOCX:
        with docx_opened(data, limits) as archive:
            xml_prolog_check(archive, DOCUMENT_XML, code="invalid_docx", what="Word document")
    elif content_type in IMAGE_TYPES:
        converter_require("ocr", "An image")
    elif content_type in OFFICE_TYPES:
        office_check(data, content_type, limits)
    else:
        return _text_checked(content_type, text_decode(data), limits)
    return None


def _text_checked(
    content_type: str, decoded: Decoded, limits: ExtractionLimits, ocr: dict[str, Any] | None = None
) -> Extracted:
    if not decoded.text.strip():
        raise ExtractionError("empty_text", "The document contains no text.")
    if len(decoded.text) > limits.max_text_chars:
        raise ExtractionError("text_too_long", f"The text is longer than {limits.max_text_chars} characters.")
    return Extracted(
        text=decoded.text,
        content_type=content_type,
        encoding=decoded.encoding,
        confidence=decoded.confidence,
        ocr=ocr,
    )


def _pdf_extracted(data: bytes, limits: ExtractionLimits) -> Extracted:
    """A PDF's text layer; pages that show an image but carry no text (scans) go through OCR when it is installed."""
    pages = pdf_pages(data, limits)
    if any(page.needs_ocr for page in pages) and converter_status("ocr").available:
        text, ocr = ocr_text(data, PDF, limits)
        return _text_checked(PDF, Decoded(text, "", 1.0), limits, ocr=ocr)
    text = "\n".join(page.text for page in pages)
    if not text.strip():
        hint = (
            ""
            if converter_status("ocr").available
            else f" OCR is not installed here ({converter_status('ocr').detail})."
        )
        raise ExtractionError(
            "pdf_without_text",
            f"The PDF has no text layer (it is probably a scan).{hint} Send a text PDF, .docx or .txt.",
        )
    return _text_checked(PDF, Decoded(text, "", 1.0), limits)


def extract(data: bytes, limits: ExtractionLimits) -> Extracted:
    """Return the text of an upload; raise ExtractionError with a clear reason when it cannot be read."""
    if not data:
        raise ExtractionError("empty_file", "The file is empty.")
    content_type = sniff_content_type(data)
    if content_type == PDF:
        return _pdf_extracted(data, limits)
    if content_type == DOCX:
        return _text_checked(content_type, Decoded(docx_text(data, limits), "", 1.0), limits)
    if content_type in IMAGE_TYPES:
        text, ocr = ocr_text(data, content_type, limits)
        return _text_checked(content_type, Decoded(text, "", 1.0), limits, ocr=ocr)
    if content_type in OFFICE_TYPES:
        return _text_checked(content_type, Decoded(office_text(data, content_type, limits), "", 1.0), limits)
    return _text_checked(content_type, text_decode(data), limits)
