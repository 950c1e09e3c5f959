"""What extraction refuses, and the bounds it works within."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contracts.refusals import Refused


class ExtractionError(Refused):
    """The upload cannot be read; `code` is a stable machine-readable reason."""


@dataclass(frozen=True)
class Extracted:
    """Text recovered from an upload, with what was detected about it."""

    text: str
    content_type: str
    encoding: str  # of a plain-text file; "" for formats that carry their own
    confidence: float = 1.0  # how sure the encoding is (`contracts.intake.encodings`)
    ocr: dict[str, Any] | None = None  # when pages were read by OCR: per page, whether OCRed and its confidence


@dataclass(frozen=True)
class ExtractionLimits:
    """Bounds that keep hostile files from exhausting memory or time."""

    max_unzipped_bytes: int
    max_pdf_pages: int
    max_text_chars: int
    conversion_timeout_s: float = 120.0  # LibreOffice or OCR on one document, then its process group is killed
