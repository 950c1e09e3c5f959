"""What each finding says in the report's margin, and where in the contract's text it is anchored."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from contracts.findings import StoredFinding, finding_list
from contracts.legal.term_values import TERM_NAMES, term_value_text

# Findings that are not comments: entities are the mentions of parties, amounts and dates (dozens per contract, many
# of them personal data); the key terms and the findings a lawyer decides on are.
UNCOMMENTED_KINDS = frozenset({"entity"})
CLAUSE_STATUS_TEXT = {
    "stipulated": "已约定",
    "blank": "模板条款尚未填写，签署前需补全或删除",
    "negated": "为排除或否定表述，请确认是否接受",
    "referenced": "仅引用其他文件，请核对所引文件的内容",
}
GRADE_TEXT = {"acceptable": "可接受", "negotiate": "需谈判", "escalate": "需上报"}
SEVERITY_TEXT = {"high": "高", "warning": "警示", "medium": "中", "note": "提示", "low": "低"}


@dataclass(frozen=True)
class ReportComment:
    """One Word comment: the span of the contract's text it is anchored at, its finding's kind and its words."""

    start: int
    end: int
    kind: str
    label: str
    text: str


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _basis(finding: StoredFinding) -> str:
    basis = _text(finding.get("basis")) or _text(finding.get("citation"))
    return f"（依据：{basis}）" if basis else ""


def clause_comment(finding: StoredFinding) -> str:
    """A clause type: its name and what its status asks of the reader."""
    status = _text(finding.get("status")) or "stipulated"
    return f"条款｜{_text(finding.get('label'))}：{CLAUSE_STATUS_TEXT.get(status, status)}"


def risk_comment(finding: StoredFinding) -> str:
    """A statutory risk: what is wrong and the article it rests on."""
    severity = _text(finding.get("severity"))
    head = f"风险｜{SEVERITY_TEXT.get(severity, severity)}" if severity else "风险"
    return f"{head}：{_text(finding.get('message')) or _text(finding.get('label'))}{_basis(finding)}"


def term_comment(finding: StoredFinding) -> str:
    """A key term: its Chinese name and its value as a lawyer reads it (¥100,000.00（含税）, 3 年, 日万分之五); a
    blank the template leaves says so."""
    label = _text(finding.get("label"))
    shown = term_value_text(finding)
    message = _text(finding.get("message"))
    return "：".join(part for part in (f"关键条款｜{TERM_NAMES.get(label, label)}", shown, message) if part)


def playbook_comment(finding: StoredFinding) -> str:
    """A playbook point: its grade, what the policy says and its legal basis."""
    grade = _text(finding.get("grade")) or _text(finding.get("outcome")) or _text(finding.get("status"))
    head = f"审查要点｜{GRADE_TEXT.get(grade, grade)}" if grade else "审查要点"
    name = _text(finding.get("title")) or _text(finding.get("label"))  # the policy point, not its rule id
    body = "：".join(part for part in (name, _text(finding.get("message"))) if part)
    return f"{head}：{body}{_basis(finding)}"


def generic_comment(finding: StoredFinding) -> str:
    """Any other kind: its label and message."""
    return "：".join(part for part in (_text(finding.get("label")), _text(finding.get("message"))) if part)


COMMENT_TEXT: Mapping[str, Callable[[StoredFinding], str]] = {
    "clause": clause_comment,
    "risk": risk_comment,
    "term": term_comment,
    "playbook": playbook_comment,
}


def _valid_span(value: Any, length: int) -> tuple[int, int] | None:
    if not (isinstance(value, list | tuple) and len(value) == 2 and all(type(v) is int for v in value)):
        return None
    start, end = max(0, value[0]), min(length, value[1])
    return (start, end) if start < end else None


def anchor_span(finding: StoredFinding, text: str) -> tuple[int, int] | None:
    """Where a finding's comment is anchored: its `span` (else its first evidence span) without the white space at
    either end, since a comment starts and ends on a character of the text; None where it has no such span."""
    candidates = [finding.get("span"), *finding_list(finding, "spans")]
    for candidate in candidates:
        span = _valid_span(candidate, len(text))
        if span is None:
            continue
        start, end = span
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            return start, end
    return None


def report_comments(findings: Iterable[Any], text: str) -> list[ReportComment]:
    """A comment for every finding with a span in `text` and something to say, in the order of the text."""
    comments = []
    for finding in findings:
        if not isinstance(finding, Mapping) or finding.get("kind") in UNCOMMENTED_KINDS:
            continue
        span = anchor_span(finding, text)
        kind = str(finding.get("kind") or "")
        words = COMMENT_TEXT.get(kind, generic_comment)(finding) or generic_comment(finding)
        if span is None or not words:
            continue
        if note := _text(finding.get("review_note")):
            words = f"{words}\n审核意见：{note}"
        comments.append(ReportComment(span[0], span[1], kind, _text(finding.get("label")), words))
    return sorted(comments, key=lambda c: (c.start, -c.end))
