"""Word comments at spans of a contract's text: in a copy of its own .docx, or in a .docx written from its text.

A .docx original's text is what intake read from it (`contracts.intake.extraction.docx_text`: every paragraph's
text, tab and break, paragraphs joined by newlines), so a span of the text is a place in its runs. Runs are split
where a comment starts or ends, and the comment is anchored from the run its first character starts to the run
its last one ends. When the copy's text is not the document's (the extraction has changed since), the report is
written from the text instead, so a comment is never anchored at the wrong words.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

import docx
from docx.document import Document as WordDocument
from docx.oxml.ns import qn
from docx.text.run import Run

from contracts.legal.report.comments import ReportComment

AUTHOR, INITIALS = "DocGate", "DG"
W_P, W_R, W_T, W_TAB, W_BR, W_CR, W_RPR = (qn(f"w:{tag}") for tag in ("p", "r", "t", "tab", "br", "cr", "rPr"))
XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
# Characters XML 1.0 cannot hold (and a carriage return, which a run would turn into a break): written as spaces,
# one for one, so that the spans of the text keep their places.
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class Piece:
    """One character source of the text: a w:t, w:tab, w:br or w:cr element and where its characters start."""

    start: int
    node: Any
    text: str

    @property
    def end(self) -> int:
        return self.start + len(self.text)


def text_pieces(root: Any) -> tuple[list[Piece], str]:
    """The pieces of a Word body in reading order, and the text they make, as intake reads it."""
    pieces: list[Piece] = []
    paragraphs: list[str] = []
    offset = 0
    for paragraph in root.iter(W_P):
        offset += 1 if paragraphs else 0  # the newline that joins paragraphs
        parts: list[str] = []
        for node in paragraph.iter():
            if node.tag == W_T and node.text:
                piece = Piece(offset, node, node.text)
            elif node.tag == W_TAB:
                piece = Piece(offset, node, "\t")
            elif node.tag in (W_BR, W_CR):
                piece = Piece(offset, node, "\n")
            else:
                continue
            pieces.append(piece)
            parts.append(piece.text)
            offset = piece.end
        paragraphs.append("".join(parts))
    return pieces, "\n".join(paragraphs)


def _preserve(node: Any, text: str) -> None:
    node.text = text
    node.set(XML_SPACE, "preserve")


def run_split(run: Any, child: Any, at: int) -> None:
    """Split a w:r so that a new run, with the same properties, starts at character `at` of its child `child`."""
    children = list(run)
    index = children.index(child)
    if at == 0 and all(c.tag == W_RPR for c in children[:index]):
        return  # already the run's first character
    twin = deepcopy(run)
    twin_children = list(twin)
    for later in children[index + 1 :]:
        run.remove(later)
    if at == 0:
        run.remove(child)
    else:
        _preserve(child, child.text[:at])
        _preserve(twin_children[index], twin_children[index].text[at:])
    for earlier in twin_children[:index]:
        if earlier.tag != W_RPR:
            twin.remove(earlier)
    run.addnext(twin)


def _boundaries_split(root: Any, offsets: Sequence[int]) -> bool:
    """Split runs so that each offset starts a run; False where a character sits outside a run (not anchorable)."""
    pieces, _ = text_pieces(root)
    for offset in sorted(set(offsets), reverse=True):  # from the end: the earlier pieces stay as they were
        piece = next((p for p in pieces if p.start <= offset < p.end), None)
        if piece is None:
            continue  # the end of the text, or the newline between paragraphs
        run = piece.node.getparent()
        if run is None or run.tag != W_R:
            return False
        run_split(run, piece.node, offset - piece.start)
    return True


def comments_anchor(document: WordDocument, comments: Sequence[ReportComment]) -> int:
    """Anchor each comment at its span of the document's text; return how many were anchored."""
    root = document.element
    if not _boundaries_split(root, [o for c in comments for o in (c.start, c.end)]):
        return 0
    pieces, _ = text_pieces(root)
    first_runs = {p.start: p.node.getparent() for p in reversed(pieces)}  # the first piece at an offset wins
    last_runs = {p.end: p.node.getparent() for p in pieces}  # the last piece ending at an offset wins
    anchored = 0
    for comment in comments:
        first, last = first_runs.get(comment.start), last_runs.get(comment.end)
        if first is None or last is None or first.tag != W_R or last.tag != W_R:
            continue
        document.add_comment([Run(first, document), Run(last, document)], comment.text, AUTHOR, INITIALS)
        anchored += 1
    return anchored


def docx_from_text(text: str) -> WordDocument:
    """A Word document of the text, one paragraph per line and one run per paragraph."""
    document = docx.Document()
    for line in _UNWRITABLE.sub(" ", text).split("\n"):
        paragraph = document.add_paragraph()
        if line:
            paragraph.add_run(line)
    return document


def docx_copy(data: bytes, text: str) -> WordDocument | None:
    """The original .docx, opened for comments, when its text is `text`; None when it is not (or is unreadable)."""
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception:  # python-docx raises many kinds for a file it cannot open: the report is written from the text
        return None
    _, copied = text_pieces(document.element)
    return document if copied == text else None


def docx_bytes(document: WordDocument) -> bytes:
    """The document saved as .docx bytes."""
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
