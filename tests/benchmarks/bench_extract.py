"""Benchmark: PDF text extraction with PDFium (what the worker runs) against pypdf (what DocGate ran before), on the
same CJK PDFs of 1, 20 and 200 pages made from the public contracts, two ways: with an embedded subset TrueType
font (as word processors write them; Debian's wqy-microhei) and with a non-embedded CID font. PDFium must read
the text drawn (all but glyphs the font lacks); whether pypdf reads the same is reported (it emits NUL for some
glyphs of large subset fonts)."""

from __future__ import annotations

import io
import json
import sys
import time
from pathlib import Path
from typing import Any

from contracts.intake.extraction import ExtractionLimits
from contracts.intake.pdf import pdf_page_texts
from rules.evaluation.common import jsonl_rows
from tests.files import EMBEDDED_CJK_FONT, cjk_pdf_bytes
from tests.shared_data import shared_file

PAGES = (1, 20, 200)
LINES_PER_PAGE = 45
LINE_CHARS = 40
LIMITS = ExtractionLimits(max_unzipped_bytes=10**9, max_pdf_pages=10_000, max_text_chars=10**8)


def pypdf_text(data: bytes) -> str:
    """The baseline: pypdf's text layer, page by page."""
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


def _pages(count: int) -> list[list[str]]:
    text = "".join(row["text"].replace("\n", "") for row in jsonl_rows(shared_file("contracts/public.jsonl")))
    lines = [text[i : i + LINE_CHARS] for i in range(0, len(text), LINE_CHARS)]
    return [[lines[(page * LINES_PER_PAGE + n) % len(lines)] for n in range(LINES_PER_PAGE)] for page in range(count)]


def _best(function: Any, data: bytes, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function(data)
        best = min(best, time.perf_counter() - started)
    return best


def _measure(pages: int, embedded_font: str | None) -> dict[str, Any]:
    drawn = _pages(pages)
    data = cjk_pdf_bytes(drawn, embedded_font)
    ours, theirs = "\n".join(pdf_page_texts(data, LIMITS)), pypdf_text(data)
    # Characters the font has no glyph for (a ☐, private-use code points in a few public texts) cannot come back.
    expected = "".join("".join(line.split()) for lines in drawn for line in lines)
    read = "".join(ours.split())
    if len(read) < 0.995 * len(expected) or read[:200] != expected[:200]:
        raise AssertionError(f"PDFium misread the {pages}-page PDF")
    repeat = 5 if pages < 200 else 2
    pdfium_s, pypdf_s = _best(lambda d: pdf_page_texts(d, LIMITS), data, repeat), _best(pypdf_text, data, repeat)
    return {
        "pages": pages,
        "bytes": len(data),
        "chars": len(ours),
        "pdfium_s": round(pdfium_s, 4),
        "pypdf_s": round(pypdf_s, 4),
        "ratio": round(pypdf_s / pdfium_s, 2),
        "drawn_chars_read": round(len(read) / len(expected), 4),
        "pypdf_reads_the_same_as_pdfium": "".join(theirs.split()) == read,
        "pypdf_nul_chars": theirs.count("\x00"),
    }


def run_benchmark() -> dict[str, Any]:
    """Seconds per PDF for both readers at each size and font kind, and their ratio."""
    fonts = {"embedded_truetype": EMBEDDED_CJK_FONT, "cid_not_embedded": None}
    if not Path(EMBEDDED_CJK_FONT).exists():
        fonts.pop("embedded_truetype")
    sizes = {kind: {str(n): _measure(n, font) for n in PAGES} for kind, font in fonts.items()}
    headline = sizes.get("embedded_truetype", sizes["cid_not_embedded"])[str(PAGES[-1])]["ratio"]
    return {
        "benchmark": "extract",
        "text": f"CJK PDFs, {LINES_PER_PAGE} lines of {LINE_CHARS} characters per page, made from the public contracts",
        "baseline": "pypdf PdfReader.extract_text, page by page",
        "ratio_pdfium_vs_pypdf": headline,
        "sizes": sizes,
    }


if __name__ == "__main__":
    json.dump(run_benchmark(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
