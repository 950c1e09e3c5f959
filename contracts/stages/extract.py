"""The extract stage: make sure the job has the document's text, and describe it."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.conf import settings

from contracts.intake.extraction import extract
from contracts.intake.submission import extraction_limits, text_sanitize
from contracts.models import Document
from contracts.stages.base import JobContext

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_ARTICLE_HEADING = re.compile(r"^\s*第[一二三四五六七八九十百零〇\d]+条", re.MULTILINE)


def text_statistics(text: str) -> dict[str, Any]:
    """Return counts that describe a text: size, lines, paragraphs, share of CJK and full-width characters."""
    chars = len(text)
    cjk = len(_CJK.findall(text))
    fullwidth = sum(1 for ch in text if unicodedata.east_asian_width(ch) == "F")
    lines = text.splitlines()
    return {
        "chars": chars,
        "lines": len(lines),
        "non_blank_lines": sum(1 for line in lines if line.strip()),
        "paragraphs": len([p for p in re.split(r"\n\s*\n", text) if p.strip()]),
        "cjk_chars": cjk,
        "cjk_ratio": round(cjk / chars, 4) if chars else 0.0,
        "fullwidth_chars": fullwidth,
        "article_headings": len(_ARTICLE_HEADING.findall(text)),
    }


class ExtractionStage:
    """Read the text of a stored PDF or Word file (intake only checked it) and describe the document.

    A file that turns out unreadable raises `ExtractionError`: the job fails with its code and message, and the
    document and its original stay. The text is saved on the document, so the API and portal show it."""

    name = "extract"

    def __init__(self, original: bytes | None = None) -> None:
        self.original = original  # the bytes themselves, for a document held in memory (`analyze`)

    def run(self, ctx: JobContext) -> None:
        document = ctx.document
        ocr = None
        if not ctx.text and (self.original is not None or document.original):
            extracted = extract(self._original(ctx), extraction_limits())
            ctx.text = text_sanitize(extracted.text)
            if self.original is None:
                Document.objects.filter(pk=document.pk).update(text=ctx.text)
            document.text = ctx.text
            ocr = extracted.ocr
        elif (earlier := (ctx.job.artifacts or {}).get("stats") or {}).get("ocr"):
            ocr = {"pages": earlier.get("ocr_pages", [])}  # the job's first run OCRed it; this run reuses the text
        ctx.stats = {
            **text_statistics(ctx.text),
            "content_type": document.content_type,
            "encoding": document.encoding,
            "size_bytes": document.size_bytes,
            "ocr": ocr is not None,
        }
        if ocr is not None:
            ctx.stats["ocr_pages"] = ocr["pages"]
            floor = settings.DOCGATE_OCR_MIN_CONFIDENCE
            if any(p["ocr"] and (p["confidence"] or 0.0) < floor for p in ocr["pages"]):
                ctx.review_reasons.append("ocr_low_confidence")

    def _original(self, ctx: JobContext) -> bytes:
        if self.original is not None:
            return self.original
        with ctx.document.original.open("rb") as handle:
            return handle.read()
