"""Benchmark: PDF text extraction with PDFium (what intake runs) against pypdf (what it ran before), on the same
CJK PDFs of 1, 20 and 200 pages made from the public contracts; both must read the same characters."""

from __future__ import annotations

import io
import json
import sys
import time
from typing import Any

from contracts.intake.extraction import ExtractionLimits
from contracts.intake.pdf import pdf_text
from rules.evaluation.common import jsonl_rows
from tests.files import cjk_pdf_bytes
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


def run_benchmark() -> dict[str, Any]:
    """Seconds per PDF for both readers at each size, and their ratio."""
    sizes: dict[str, Any] = {}
    for count in PAGES:
        data = cjk_pdf_bytes(_pages(count))
        ours, theirs = pdf_text(data, LIMITS), pypdf_text(data)
        if "".join(ours.split()) != "".join(theirs.split()):
            raise AssertionError(f"PDFium and pypdf read the {count}-page PDF differently")
        repeat = 5 if count < 200 else 2
        pdfium_s, pypdf_s = _best(lambda d: pdf_text(d, LIMITS), data, repeat), _best(pypdf_text, data, repeat)
        sizes[str(count)] = {
            "pages": count,
            "chars": len(ours),
            "pdfium_s": round(pdfium_s, 4),
            "pypdf_s": round(pypdf_s, 4),
            "ratio": round(pypdf_s / pdfium_s, 2),
        }
    return {
        "benchmark": "extract",
        "text": f"CJK PDFs (STSong-Light CID font, {LINES_PER_PAGE} lines of {LINE_CHARS} characters per page) "
        "made from the public contracts",
        "baseline": "pypdf PdfReader.extract_text, page by page",
        "ratio_pdfium_vs_pypdf": sizes[str(PAGES[-1])]["ratio"],
        "sizes": sizes,
    }


if __name__ == "__main__":
    json.dump(run_benchmark(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
