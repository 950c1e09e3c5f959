"""The report's one-page summary: what to decide first (risks, blank and missing clauses, playbook points), then
the clause types found; written into the report and on its own for the PDF."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import docx
from docx.document import Document as WordDocument
from docx.enum.text import WD_BREAK
from docx.shared import Pt

from contracts.legal.desk import KEY_CONTRACT_CLAUSES
from contracts.legal.report.comments import COMMENT_TEXT, generic_comment, risk_comment
from rules.clauses import BLANK, NEGATED, REFERENCED, STIPULATED

# A page holds this many decision lines of this many characters (two lines of print each, at most); the rest are
# counted or cut short, and each is a comment in full in the report.
MAX_DECISIONS = 10
MAX_DECISION_CHARS = 90
# The kinds the summary sorts into its own sections; any other kind with a message is a point to decide.
SUMMARISED_KINDS = frozenset({"clause", "risk", "entity", "term"})
# Playbook grades that need nobody's decision.
SETTLED_GRADES = frozenset({"acceptable"})


@dataclass(frozen=True)
class ReportSummary:
    """The summary's parts: a heading, lines about the document, the decisions and the clause types by status."""

    title: str
    facts: list[str]
    decisions: list[str]
    found: list[str] = field(default_factory=list)
    more_decisions: int = 0

    def as_text(self) -> str:
        """The summary as plain text (what the outgoing gate reads)."""
        return "\n".join([self.title, *self.facts, *self.decisions, "、".join(self.found)])


def _labels(findings: list[Mapping[str, Any]], status: str) -> list[str]:
    return sorted(
        {
            str(f["label"])
            for f in findings
            if f.get("kind") == "clause" and f.get("status", STIPULATED) == status and f.get("label")
        }
    )


def report_summary(findings: Iterable[Any], *, title: str, facts: list[str]) -> ReportSummary:
    """The summary of a contract's findings: risks first, then playbook points to negotiate or escalate, blank,
    missing, excluded and merely referenced clause types; the clause types agreed last."""
    usable = [f for f in findings if isinstance(f, Mapping)]
    found, blank = _labels(usable, STIPULATED), _labels(usable, BLANK)
    missing = [label for label in KEY_CONTRACT_CLAUSES if label not in found and label not in blank]
    decisions = [risk_comment(f) for f in usable if f.get("kind") == "risk"]
    for finding in usable:
        kind = str(finding.get("kind") or "")
        grade = str(finding.get("grade") or finding.get("outcome") or "")
        words = COMMENT_TEXT.get(kind, generic_comment)(finding)
        if kind not in SUMMARISED_KINDS and grade not in SETTLED_GRADES and words:
            decisions.append(words)
    decisions += [f"待填写｜{label}：模板条款尚未填写，签署前补全或删除" for label in blank]
    decisions += [f"未发现｜{label}：决定是否要求对方补充" for label in missing]
    decisions += [f"排除表述｜{label}：确认是否接受" for label in _labels(usable, NEGATED)]
    decisions += [f"仅引用｜{label}：核对所引文件" for label in _labels(usable, REFERENCED)]
    shown = [line if len(line) <= MAX_DECISION_CHARS else f"{line[: MAX_DECISION_CHARS - 1]}…" for line in decisions]
    shown = shown[:MAX_DECISIONS]
    return ReportSummary(title, facts, shown, found, len(decisions) - len(shown))


def _paragraph(document: WordDocument, text: str, *, size: float = 10.5, bold: bool = False) -> Any:
    """A paragraph of the summary with its own font size: the contract's own styles may lack Word's built-in
    heading and list styles, so the summary names none."""
    paragraph = document.add_paragraph()
    run = paragraph.add_run(text)
    run.font.size, run.font.bold = Pt(size), bold
    return paragraph


def summary_write(document: WordDocument, summary: ReportSummary) -> list[Any]:
    """Append the summary to a Word document; return the paragraphs' elements (to move them where they belong)."""
    paragraphs = [_paragraph(document, summary.title, size=16, bold=True)]
    paragraphs += [_paragraph(document, fact, size=9) for fact in summary.facts]
    paragraphs.append(_paragraph(document, "需要决定的事项", size=13, bold=True))
    if not summary.decisions:
        paragraphs.append(_paragraph(document, "未发现需要决定的事项。"))
    paragraphs += [_paragraph(document, f"{n}. {line}") for n, line in enumerate(summary.decisions, 1)]
    if summary.more_decisions:
        paragraphs.append(_paragraph(document, f"另有 {summary.more_decisions} 项，见正文批注。"))
    paragraphs.append(_paragraph(document, "已约定的条款类型", size=13, bold=True))
    paragraphs.append(_paragraph(document, "、".join(summary.found) if summary.found else "无"))
    return [p._p for p in paragraphs]


def summary_first(document: WordDocument, summary: ReportSummary) -> None:
    """Put the summary on a page of its own before the contract's first paragraph."""
    elements = summary_write(document, summary)
    page_break = document.add_paragraph()
    page_break.add_run().add_break(WD_BREAK.PAGE)
    body = document.element.body
    for position, element in enumerate([*elements, page_break._p]):
        body.insert(position, element)


def summary_docx(summary: ReportSummary) -> WordDocument:
    """The summary alone, as a Word document (what the PDF is made from)."""
    document = docx.Document()
    summary_write(document, summary)
    return document
