"""PDF text with PDFium (pypdfium2): opened and counted cheaply at intake, read page by page in the worker."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from django.utils.translation import gettext as _

from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.reading_order import Glyph, reading_order_text

# PDFium may be called from one thread at a time per process, even for different documents (pypdfium2's rule).
_PDFIUM_LOCK = threading.Lock()


@contextmanager
def pdf_opened(data: bytes, limits: ExtractionLimits) -> Iterator[Any]:
    """Open a PDF under the PDFium lock and check it: not password-protected, not broken, not too many pages.

    PDFium counts the real page tree, so a lying /Count costs nothing; opening does not read the pages."""
    import pypdfium2 as pdfium  # heavy: the PDFium library, loaded only for PDF uploads

    with _PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise ExtractionError(
                    "encrypted_pdf", _("The PDF is password-protected; send an unprotected copy.")
                ) from exc
            raise ExtractionError("invalid_pdf", _("The PDF cannot be read.")) from exc
        try:
            pages = len(document)
            if pages > limits.max_pdf_pages:
                raise ExtractionError(
                    "too_many_pages",
                    _("The PDF has %(pages)s pages; the limit is %(limit)s.")
                    % {"pages": pages, "limit": limits.max_pdf_pages},
                )
            yield document
        finally:
            document.close()


def pdf_check(data: bytes, limits: ExtractionLimits) -> int:
    """The intake check of a PDF (`pdf_opened`); return its page count."""
    with pdf_opened(data, limits) as document:
        return len(document)


class PdfPage(NamedTuple):
    """One page's text layer, and (for a page without text) whether it shows an image: a scan's page is one
    image and no text."""

    text: str
    has_image: bool

    @property
    def needs_ocr(self) -> bool:
        """A page that shows something but carries no text: what OCR is for."""
        return self.has_image and not self.text.strip()


def _glyphs(textpage: Any, pdfium_c: Any) -> Iterator[Glyph]:
    """Every character of a PDFium text page in stream order, with its loose box (the font's full height, so
    every glyph of a line shares one top and bottom)."""
    raw, count = textpage.raw, textpage.count_chars()
    box_of = pdfium_c.FPDFText_GetLooseCharBox
    rect = pdfium_c.FS_RECTF()  # one buffer for every call: this loop runs once per character of the document
    text = textpage.get_text_range()
    # The page's text is its character list one for one unless PDFium left a character out or a character lies
    # beyond UCS-2: then each character's code point is asked for (twice the calls, for those pages only).
    characters = text if len(text) == count else _characters(raw, count, pdfium_c)
    for index, character in enumerate(characters):
        if character and box_of(raw, index, rect):
            yield Glyph(character, rect.left, rect.bottom, rect.right, rect.top)


def _characters(raw: Any, count: int, pdfium_c: Any) -> list[str]:
    """Each character's text by its code point: a surrogate pair joined at its first half (its second is ""), ""
    for a glyph without Unicode or a lone half, nothing a reader could use."""
    codes = [pdfium_c.FPDFText_GetUnicode(raw, index) for index in range(count)] + [0]
    characters = []
    for index in range(count):
        code, following = codes[index], codes[index + 1]
        if 0xD800 <= code < 0xDC00 and 0xDC00 <= following < 0xE000:
            code = 0x10000 + ((code - 0xD800) << 10) + (following - 0xDC00)
        characters.append("" if code == 0 or 0xD800 <= code < 0xE000 else chr(code))
    return characters


def pdf_pages(data: bytes, limits: ExtractionLimits) -> list[PdfPage]:
    """Every page's text layer in visual reading order, rebuilt from PDFium's character boxes
    (`contracts.intake.reading_order`: lines, then blocks and columns), lines ending in \n. PDFium drops the
    duplicate glyphs a fake-bold rendering draws over each other ("第第三三条条" reads 第三条)."""
    import pypdfium2 as pdfium  # heavy: the PDFium library, loaded only for PDF uploads
    import pypdfium2.raw as pdfium_c  # heavy: as above

    with pdf_opened(data, limits) as document:
        pages: list[PdfPage] = []
        total = 0
        for number in range(len(document)):
            try:
                page = document[number]
                textpage = page.get_textpage()
                text = reading_order_text(_glyphs(textpage, pdfium_c))
                # Only a page without text can need OCR, so only such a page is searched for an image.
                has_image = not text.strip() and any(
                    True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2)
                )
                textpage.close()
                page.close()
            except pdfium.PdfiumError as exc:
                raise ExtractionError(
                    "invalid_pdf", _("Page %(n)s of the PDF cannot be read.") % {"n": number + 1}
                ) from exc
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            total += len(text)
            if total > limits.max_text_chars:
                raise ExtractionError("text_too_long", _("The PDF holds more text than DocGate accepts."))
            pages.append(PdfPage(text, has_image))
        return pages


def pdf_page_texts(data: bytes, limits: ExtractionLimits) -> list[str]:
    """The text of every page (`pdf_pages`)."""
    return [page.text for page in pdf_pages(data, limits)]
