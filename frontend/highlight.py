"""Server-side highlighting: the original text split at finding spans, every piece escaped, marks around findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from rules.pii import mask_pii

MASK = "＊"
PROVENANCES = ("rule", "llm", "both")

# A finding as stored and read back (JSON: a reviewer's correction may have set any key to any value).
StoredFinding = Mapping[str, Any]


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


def _span(value: Any, length: int) -> tuple[int, int] | None:
    if not (isinstance(value, list | tuple) and len(value) == 2):
        return None
    start, end = value
    if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
        return None
    start, end = max(0, start), min(length, end)
    return (start, end) if start < end else None


def _listed(finding: StoredFinding, key: str) -> list[Any]:
    """A list-valued key of a stored finding, or an empty list where it holds anything else (an old correction)."""
    value = finding.get(key)
    return value if isinstance(value, list) else []


def finding_spans(finding: StoredFinding, length: int) -> list[tuple[int, int]]:
    """Every span a finding points at: `span`, risk `spans`, a clause's other occurrences, an entity group's
    mentions, and spans inside its evidence list.

    A clause found by the rules marks the words that matched (`match_span`), not its whole article: contracts would
    otherwise be one long highlight. The article span stays in the findings table.
    """
    clause = finding.get("kind") == "clause"
    primary = finding.get("match_span") if clause else None
    candidates: list[Any] = [primary if _span(primary, length) else finding.get("span")]
    candidates.extend(_listed(finding, "spans"))
    for item in [*_listed(finding, "occurrences"), *_listed(finding, "mentions")]:
        if isinstance(item, dict):
            words = item.get("match_span") if clause else None
            candidates.append(words if _span(words, length) else item.get("span"))
    evidence = finding.get("evidence")
    if isinstance(evidence, list):
        candidates.extend(item.get("span") for item in evidence if isinstance(item, dict))
    spans = [span for span in (_span(c, length) for c in candidates) if span is not None]
    return sorted(set(spans))


def finding_marks(findings: Iterable[StoredFinding], length: int) -> list[Mark]:
    """The marks of all findings, in text order."""
    marks = [
        Mark(start, end, str(finding.get("id", "")), finding_provenance(finding))
        for finding in findings
        for start, end in finding_spans(finding, length)
    ]
    return sorted(marks, key=lambda mark: (mark.start, mark.end))


def pii_masked(text: str, findings: Iterable[StoredFinding]) -> str:
    """The text with personal data hidden, same length so spans stay valid: the PII rules plus PII findings."""
    chars = list(mask_pii(text))
    for finding in findings:
        if finding.get("kind") == "entity" and finding.get("is_pii"):
            for start, end in finding_spans(finding, len(chars)):
                chars[start:end] = MASK * (end - start)
    return "".join(chars)


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
    """A finding for tables: PII entity values masked unless the viewer may see them, spans as text."""
    shown: dict[str, Any] = dict(finding)
    if finding.get("kind") == "entity" and finding.get("is_pii") and not show_pii:
        for key in ("text", "value", "evidence"):
            if isinstance(value := shown.get(key), str):
                shown[key] = MASK * len(value)
        shown["mentions"] = [
            {**m, "text": MASK * len(str(m.get("text") or ""))} if isinstance(m, dict) else m
            for m in _listed(finding, "mentions")
        ]
    shown["provenance_style"] = finding_provenance(finding)
    mentions = _listed(finding, "mentions")  # an entity group's mentions include its first one
    shown["places"] = len(mentions) if mentions else 1 + len(_listed(finding, "occurrences"))
    evidence = finding.get("evidence")
    if isinstance(evidence, list):
        shown["evidence_text"] = "、".join(str(item.get("term", "")) for item in evidence if isinstance(item, dict))
    elif evidence is not None:
        shown["evidence_text"] = str(shown.get("evidence") or "")
    else:
        shown["evidence_text"] = str(shown.get("text") or shown.get("message") or "")
    rule_ids = finding.get("rule_ids")
    shown["rule_text"] = finding.get("rule_id") or (", ".join(rule_ids) if isinstance(rule_ids, list) else "")
    return shown
