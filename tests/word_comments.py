"""Reading a report's Word comments back: each comment's text and the words its range marks."""

from __future__ import annotations

from docx.document import Document as WordDocument
from docx.oxml.ns import qn


def comment_anchors(document: WordDocument) -> dict[str, tuple[str, str]]:
    """Each comment's text and the text between its range markers, read back from the body XML (paragraphs
    joined by newlines, as intake reads a .docx)."""
    open_ids: list[str] = []
    anchored: dict[str, str] = {}
    first_paragraph = True
    for node in document.element.body.iter():
        if node.tag == qn("w:p"):
            if not first_paragraph:
                for cid in open_ids:
                    anchored[cid] += "\n"
            first_paragraph = False
        elif node.tag == qn("w:commentRangeStart"):
            open_ids.append(node.get(qn("w:id")))
            anchored[open_ids[-1]] = ""
        elif node.tag == qn("w:commentRangeEnd"):
            open_ids.remove(node.get(qn("w:id")))
        else:
            piece = {qn("w:t"): node.text or "", qn("w:tab"): "\t", qn("w:br"): "\n"}.get(node.tag, "")
            for cid in open_ids:
                anchored[cid] += piece
    return {str(c.comment_id): (c.text, anchored[str(c.comment_id)]) for c in document.comments}
