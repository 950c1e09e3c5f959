"""Scanned PDFs and photographed pages (PNG, JPEG, TIFF): OCRmyPDF with Tesseract (chi_sim + chi_tra) in the
worker. Pages that already carry text are kept as they are (`--skip-text`); the others are rotated upright,
deskewed and read. Tesseract also writes its per-word confidences (a TSV beside its text), so every OCRed page
gets a confidence: the mean over its words, 0–100.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.pdf import pdf_page_texts
from contracts.intake.sandbox import OCR_LANGUAGES, converter_require, run_converter, workspace

PNG, JPEG, TIFF = "image/png", "image/jpeg", "image/tiff"
IMAGE_TYPES = {PNG: ".png", JPEG: ".jpg", TIFF: ".tif"}
# Photographs often carry no resolution; OCRmyPDF needs one to size the page. 300 dpi is a scanner's default.
IMAGE_DPI = 300
_PAGE_NUMBER = re.compile(r"(\d{6})")
# Tesseract's Chinese models put a space between characters ("违 约 金", "自 2024 年"); Chinese text has none, and
# the clause patterns need the words whole. Spaces with a Chinese character or mark on either side go.
_CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
_OCR_SPACES = re.compile(f"(?<=[{_CJK}]) +| +(?=[{_CJK}])")


def sniff_image(data: bytes) -> str | None:
    """The image type of `data` from its leading bytes, or None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith((b"II*\x00", b"MM\x00*")):
        return TIFF
    return None


def _page_confidences(folder: Path) -> dict[int, float]:
    """Mean word confidence per page from the TSV files Tesseract left in OCRmyPDF's work folder."""
    confidences: dict[int, float] = {}
    for tsv in folder.rglob("*.tsv"):
        number = _PAGE_NUMBER.search(tsv.name)
        if number is None:
            continue
        with tsv.open(encoding="utf-8", errors="replace", newline="") as handle:
            words = [
                float(row["conf"])
                for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
                if row.get("level") == "5" and (row.get("text") or "").strip() and float(row["conf"]) >= 0
            ]
        confidences[int(number.group(1))] = round(sum(words) / len(words), 1) if words else 0.0
    return confidences


def ocr_text(data: bytes, content_type: str, limits: ExtractionLimits) -> tuple[str, dict[str, Any]]:
    """Read a scanned PDF or an image; return the text and what OCR did: `{"pages": [{"page", "ocr",
    "confidence"}], "languages"}`. Pages with a text layer are read from it, without OCR."""
    converter_require("ocr", _("A scanned document or image"))
    with workspace() as folder:
        source = folder / f"input{IMAGE_TYPES.get(content_type, '.pdf')}"
        source.write_bytes(data)
        (folder / "tsv.cfg").write_text("tessedit_create_tsv 1\n", encoding="utf-8")
        output = folder / "output.pdf"
        argv = [
            "ocrmypdf", "--skip-text", "--rotate-pages", "--deskew", "--jobs", "1", "--output-type", "pdf",
            "-l", "+".join(OCR_LANGUAGES), "--tesseract-config", str(folder / "tsv.cfg"), "--keep-temporary-files",
            "--image-dpi", str(IMAGE_DPI), str(source), str(output),
        ]  # fmt: skip
        result = run_converter(argv, folder=folder, timeout_s=limits.conversion_timeout_s, what=gettext_noop("scan"))
        if result.returncode != 0 or not output.exists():
            reason = (result.stderr.strip().splitlines() or ["no output"])[-1][:300]
            raise ExtractionError("ocr_failed", _("OCR could not read the document: %(reason)s") % {"reason": reason})
        confidences = _page_confidences(folder)
        texts = pdf_page_texts(output.read_bytes(), limits)
    pages = [
        {"page": number, "ocr": number in confidences, "confidence": confidences.get(number)}
        for number in range(1, len(texts) + 1)
    ]
    texts = [_OCR_SPACES.sub("", text) if page["ocr"] else text for text, page in zip(texts, pages, strict=True)]
    return "\n".join(texts), {"pages": pages, "languages": list(OCR_LANGUAGES)}
