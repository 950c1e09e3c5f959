"""Text extraction from uploaded bytes: type decided by content, never by the file name."""

from __future__ import annotations

import io
import re
import threading
import zipfile
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from contracts.intake.encodings import AmbiguousEncoding, Decoded, legacy_decode, utf16_without_bom
from contracts.refusals import Refused

WORD_NS = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# Control characters other than tab, newline, carriage return and form feed mark binary data, not text.
_BINARY_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


class ExtractionError(Refused):
    """The upload cannot be read; `code` is a stable machine-readable reason."""


@dataclass(frozen=True)
class Extracted:
    """Text recovered from an upload, with what was detected about it."""

    text: str
    content_type: str
    encoding: str


@dataclass(frozen=True)
class ExtractionLimits:
    """Bounds that keep hostile files from exhausting memory or time."""

    max_unzipped_bytes: int
    max_pdf_pages: int
    max_text_chars: int


def sniff_content_type(data: bytes) -> str:
    """Return the MIME type recognised from the leading bytes (PDF, DOCX, otherwise plain text)."""
    if data.startswith(b"%PDF-"):
        return "application/pdf"
    if data.startswith(b"PK\x03\x04"):
        return "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    return "text/plain"


_BINARY_MESSAGE = "The file contains binary data, not text. Send .txt, .docx or .pdf."


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


def _zip_member_read(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """Read one member, stopping once `limit` bytes are exceeded (declared sizes can lie)."""
    out = io.BytesIO()
    with archive.open(name) as member:
        while chunk := member.read(65536):
            out.write(chunk)
            if out.tell() > limit:
                raise ExtractionError("archive_too_large", "The .docx expands beyond the allowed size.")
    return out.getvalue()


def docx_text(data: bytes, limits: ExtractionLimits) -> str:
    """Extract paragraph text from a .docx; reject archives that are broken or expand too far."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ExtractionError("invalid_docx", "The file looks like a .docx but is not a valid zip archive.") from exc
    with archive:
        try:
            infos = archive.infolist()
        except (zipfile.BadZipFile, OSError) as exc:
            raise ExtractionError("invalid_docx", "The .docx archive is damaged.") from exc
        if sum(info.file_size for info in infos) > limits.max_unzipped_bytes:
            raise ExtractionError("archive_too_large", "The .docx expands beyond the allowed size.")
        if "word/document.xml" not in archive.namelist():
            raise ExtractionError("invalid_docx", "The zip archive is not a Word document (no word/document.xml).")
        try:
            xml = _zip_member_read(archive, "word/document.xml", limits.max_unzipped_bytes)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise ExtractionError("invalid_docx", "The .docx archive is damaged.") from exc
    if b"<!DOCTYPE" in xml[:4096] or b"<!ENTITY" in xml:
        raise ExtractionError("invalid_docx", "The Word document declares entities, which DocGate refuses.")
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise ExtractionError("invalid_docx", "The Word document's XML is malformed.") from exc
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


# PDFium may be called from one thread at a time per process, even for different documents (pypdfium2's rule).
_PDFIUM_LOCK = threading.Lock()


def pdf_text(data: bytes, limits: ExtractionLimits) -> str:
    """Extract the text layer of a PDF with PDFium, page by page in reading order; reject password-protected,
    broken or over-long files. PDFium counts the real page tree (a lying /Count costs nothing) and drops the
    duplicate glyphs a fake-bold rendering draws over each other ("第第三三条条" reads 第三条)."""
    import pypdfium2 as pdfium  # heavy: the PDFium library, loaded only for PDF uploads

    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise ExtractionError(
                    "encrypted_pdf", "The PDF is password-protected; send an unprotected copy."
                ) from exc
            raise ExtractionError("invalid_pdf", "The PDF cannot be read.") from exc
        try:
            return _pdf_pages_text(document, limits)
        finally:
            document.close()


def _pdf_pages_text(document: Any, limits: ExtractionLimits) -> str:
    """The text of every page of an open PDFium document, pages joined by a newline (lines end in \n)."""
    import pypdfium2 as pdfium  # heavy: the PDFium library, loaded only for PDF uploads

    page_count = len(document)
    if page_count > limits.max_pdf_pages:
        raise ExtractionError("too_many_pages", f"The PDF has {page_count} pages; the limit is {limits.max_pdf_pages}.")
    parts: list[str] = []
    total = 0
    for number in range(page_count):
        try:
            page = document[number]
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            textpage.close()
            page.close()
        except pdfium.PdfiumError as exc:
            raise ExtractionError("invalid_pdf", f"Page {number + 1} of the PDF cannot be read.") from exc
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        total += len(text)
        if total > limits.max_text_chars:
            raise ExtractionError("text_too_long", "The PDF holds more text than DocGate accepts.")
        parts.append(text)
    return "\n".join(parts)


def extract(data: bytes, limits: ExtractionLimits) -> Extracted:
    """Return the text of an upload; raise ExtractionError with a clear reason when it cannot be read."""
    if not data:
        raise ExtractionError("empty_file", "The file is empty.")
    content_type = sniff_content_type(data)
    if content_type == "application/pdf":
        text, encoding = pdf_text(data, limits), ""
        if not text.strip():
            raise ExtractionError(
                "pdf_without_text",
                "The PDF has no text layer (it is probably a scan). DocGate does not run OCR: send a text PDF,"
                " .docx or .txt.",
            )
    elif content_type.endswith("wordprocessingml.document"):
        text, encoding = docx_text(data, limits), ""
    else:
        decoded = text_decode(data)
        text, encoding = decoded.text, decoded.encoding
    if not text.strip():
        raise ExtractionError("empty_text", "The document contains no text.")
    if len(text) > limits.max_text_chars:
        raise ExtractionError("text_too_long", f"The text is longer than {limits.max_text_chars} characters.")
    return Extracted(text=text, content_type=content_type, encoding=encoding)
