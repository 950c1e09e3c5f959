"""The extract stage: make sure the job has the document's text, and describe it."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from contracts.intake.extraction import extract
from contracts.intake.submission import extraction_limits, text_sanitize
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
    """Make sure the job has the document's text (re-extracting a stored original if needed) and describe it."""

    name = "extract"

    def run(self, ctx: JobContext) -> None:
        document = ctx.document
        if not ctx.text and document.original:
            with document.original.open("rb") as handle:
                ctx.text = text_sanitize(extract(handle.read(), extraction_limits()).text)
        ctx.stats = {
            **text_statistics(ctx.text),
            "content_type": document.content_type,
            "encoding": document.encoding,
            "size_bytes": document.size_bytes,
        }
