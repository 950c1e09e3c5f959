"""Findings: the one record every layer's answer becomes, born here from rule results and LLM answers.

A finding is a JSON object (it is stored in the result as it is), typed as `Finding`: merge, review, the portal
and the API read these keys. Spans point into the original text the user sent.
"""

from __future__ import annotations

from typing import Any, Literal, Required, get_args

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from rules.entities import ENTITY_PACK, EntityGroup
from rules.normalize import NormalizedText

FindingKind = Literal["clause", "risk", "entity", "ticket_category", "urgency"]
FindingSource = Literal["rule", "llm"]
# Choice sets named in the OpenAPI schema (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
FINDING_KINDS, FINDING_SOURCES = get_args(FindingKind), get_args(FindingSource)


# Typed for pydantic too (`contracts.result_data`), which needs typing_extensions' TypedDict before Python 3.12;
# keys a layer adds that are not named here are kept, not dropped.
@with_config(ConfigDict(extra="allow"))
class Finding(TypedDict, total=False):
    """One finding of a result. `kind`: clause | risk | entity | ticket_category | urgency; `source`: rule | llm."""

    id: str  # F1, F2 ... once the result is stored
    kind: Required[FindingKind]
    label: str | None
    source: Required[FindingSource]
    span: list[int]
    spans: list[list[int]]  # risk: every piece of evidence
    match_span: list[int]
    normalized_span: list[int]
    evidence: str | list[dict[str, Any]]  # the quoted text; a ticket category's term hits
    status: str  # clause: stipulated | blank (unfilled template article) | negated | referenced
    occurrences: list[dict[str, Any]]  # clause: every other place the clause type is found (span, match_span …)
    model_score: float | None  # clause: the heading model's best probability for the type, None without one
    mentions: list[dict[str, Any]]  # entity: every mention of the group (span, text, rule_id)
    roles: list[str]  # entity PARTY: the role words that refer to the party (甲方, 委托方)
    definition_span: list[int]  # entity PARTY: where the party is defined (甲方：某某公司)
    confidence: float
    rule_id: str
    rule_ids: list[str]
    pack_version: str
    prompt_version: str
    cuad: str | None
    matched: str
    severity: str
    message: str
    basis: str
    text: str
    value: Any
    is_pii: bool
    level2: str | None
    level3: str | None
    department: str | None
    decided_by: str
    agreement: bool | str | None  # ticket: did rules and classifier agree; after the merge, "unconfirmed"
    rules_label: str | None
    classifier_label: str | None
    model_version: str | None
    cues: list[dict[str, Any]]
    # Set by the merge: which layers found it, what the model quoted, and a conflict between the two.
    provenance: str
    llm_evidence: str | list[dict[str, Any]]
    llm_span: list[int]
    conflict: str
    # Set by a review (`contracts.review.reviewed_data`): the decision, a correction's previous values, the note.
    review: str  # unreviewed | approved | corrected | rejected
    original: dict[str, Any]
    review_note: str


def span_original(normalized: NormalizedText, start: int, end: int) -> list[int]:
    """Map a span of the normalized text back onto what the user sent."""
    s, e = normalized.to_original(start, end)
    return [s, e]


def entity_finding(normalized: NormalizedText, group: EntityGroup) -> Finding:
    """One entity group: label, display text, normalised value, every mention; a party's roles and definition.
    PII is flagged so that logs, exports and the portal mask the text of every mention."""
    first = group.definition or group.mentions[0]
    finding: Finding = {
        "kind": "entity",
        "label": group.label,
        "span": span_original(normalized, first.start, first.end),
        "text": group.text,
        "value": group.value,
        "is_pii": group.is_pii,
        "rule_id": first.rule_id,
        "rule_ids": list(group.rule_ids),
        "mentions": [
            {"span": span_original(normalized, m.start, m.end), "text": m.text, "rule_id": m.rule_id}
            for m in group.mentions
        ],
        "pack_version": ENTITY_PACK[1],
        "source": "rule",
    }
    if group.label == "PARTY":
        finding["roles"] = list(group.roles)
        if group.definition is not None:
            finding["definition_span"] = finding["span"]
    return finding
