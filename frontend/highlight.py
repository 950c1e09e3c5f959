"""Server-side highlighting: the original text split at finding spans, every piece escaped, marks around findings."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from contracts.findings import StoredFinding, finding_list, finding_spans
from contracts.tenancy.personal_data import finding_masked, text_masked

PROVENANCES = ("rule", "llm", "both")


@dataclass(frozen=True)
class Mark:
    """One highlighted stretch of the original text, owned by one finding."""

    start: int
    end: int
    finding_id: str
    provenance: str


def finding_provenance(finding: StoredFinding) -> str:
    """rule, llm or both (older results carry only `source`)."""
    value = str(finding.get("provenance") or finding.get("source") or "rule")
    return value if value in PROVENANCES else "rule"


def finding_marks(findings: Iterable[StoredFinding], length: int) -> list[Mark]:
    """The marks of all findings, in text order."""
    marks = [
        Mark(start, end, str(finding.get("id", "")), finding_provenance(finding))
        for finding in findings
        for start, end in finding_spans(finding, length)
    ]
    return sorted(marks, key=lambda mark: (mark.start, mark.end))


def pii_masked(text: str, findings: Iterable[StoredFinding]) -> str:
    """The text with personal data masked for a viewer who may not see it (`contracts.tenancy.personal_data`)."""
    return text_masked(text, findings)


def _style(provenances: set[str]) -> str:
    if "both" in provenances or {"rule", "llm"} <= provenances:
        return "both"
    return next(iter(provenances))


def highlight_html(text: str, findings: Iterable[StoredFinding]) -> SafeString:
    """Return the text as HTML: overlapping spans are split into segments, each marked with all its findings."""
    marks = finding_marks(findings, len(text))
    bounds = sorted({0, len(text), *(m.start for m in marks), *(m.end for m in marks)})
    pieces: list[str] = []
    for start, end in pairwise(bounds):
        covering = [m for m in marks if m.start <= start and end <= m.end]
        segment = escape(text[start:end])
        if not covering:
            pieces.append(segment)
            continue
        ids = " ".join(dict.fromkeys(m.finding_id for m in covering))
        style = _style({m.provenance for m in covering})
        multi = " f-multi" if len(covering) > 1 else ""
        pieces.append(f'<mark class="f-{style}{multi}" data-finding="{escape(ids)}">{segment}</mark>')
    # Every piece of user text above went through escape(); the only markup is our own <mark> tags.
    return mark_safe("".join(pieces))


def finding_display(finding: StoredFinding, *, show_pii: bool) -> dict[str, Any]:
    """A finding for tables, masked (`contracts.tenancy.personal_data`) unless the viewer may see personal data."""
    shown: dict[str, Any] = dict(finding) if show_pii else finding_masked(finding)
    shown["provenance_style"] = finding_provenance(finding)
    mentions = finding_list(finding, "mentions")  # an entity group's mentions include its first one
    shown["places"] = len(mentions) if mentions else 1 + len(finding_list(finding, "occurrences"))
    evidence = shown.get("evidence")
    if isinstance(evidence, list):
        shown["evidence_text"] = "、".join(str(item.get("term", "")) for item in evidence if isinstance(item, dict))
    elif evidence is not None:
        shown["evidence_text"] = str(shown.get("evidence") or "")
    else:
        shown["evidence_text"] = str(shown.get("text") or shown.get("message") or "")
    rule_ids = finding.get("rule_ids")
    shown["rule_text"] = finding.get("rule_id") or (", ".join(rule_ids) if isinstance(rule_ids, list) else "")
    return shown
