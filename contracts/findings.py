"""Findings: the one record every layer's answer becomes, born here from rule results and LLM answers.

A finding is a JSON object (it is stored in the result as it is), typed as `Finding`: merge, review, the portal
and the API read these keys. Spans point into the original text the user sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Required, get_args

from pydantic import ConfigDict, Field, TypeAdapter, with_config
from typing_extensions import TypedDict

from rules.entities import ENTITY_PACK, EntityGroup
from rules.normalize import NormalizedText

FindingKind = Literal["clause", "risk", "term", "playbook", "entity", "ticket_category", "urgency", "repeat_case"]
FindingSource = Literal["rule", "llm"]
# Choice sets named in the OpenAPI schema (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
FINDING_KINDS, FINDING_SOURCES = get_args(FindingKind), get_args(FindingSource)


# Typed for pydantic too (`contracts.result_data`), which needs typing_extensions' TypedDict before Python 3.12;
# keys a layer adds that are not named here are kept, not dropped.
KEEP_EXTRA = ConfigDict(extra="allow")


class FindingBase(TypedDict, total=False):
    """What every finding may carry, whatever its kind."""

    id: str  # F1, F2 ... once the result is stored
    label: str | None  # clause type, risk code, playbook rule, entity label, ticket category or urgency level
    span: list[int]  # the primary evidence in the original text
    evidence: str | list[dict[str, Any]]  # the quoted text; a ticket category's term hits
    confidence: float
    rule_id: str
    rule_ids: list[str]
    pack_version: str
    prompt_version: str  # a model's finding: the prompt that asked for it
    # Set by the merge: which layers found it, what the model quoted, a conflict between the two, and whether the
    # model, asked about a rule finding, left it unconfirmed.
    provenance: str
    llm_evidence: str | list[dict[str, Any]]
    llm_span: list[int]
    conflict: str
    agreement: bool | str | None  # ticket: did rules and classifier agree; after the merge, "unconfirmed"
    # Set by a review (`contracts.review.reviewed_data`): the decision, a correction's previous values, the note.
    review: str  # unreviewed | approved | corrected | rejected
    original: dict[str, Any]
    review_note: str


@with_config(KEEP_EXTRA)
class ClauseFinding(FindingBase, total=False):
    """One clause type of a contract: its primary article, status, and every other place it is found."""

    kind: Required[Literal["clause"]]
    source: Required[FindingSource]
    cuad: str | None  # the closest CUAD clause name
    match_span: list[int]  # the words that matched, inside `span`
    normalized_span: list[int]  # `span` in the normalized text
    status: str  # stipulated | blank (unfilled template article) | negated | referenced
    occurrences: list[dict[str, Any]]  # every other place the type is found (span, match_span, status, rule_id …)
    model_score: float | None  # the heading model's best probability for the type, None without one
    matched: str


class StatuteArticle(TypedDict):
    """The article a statutory point rests on: the law, the article number and what it says in a line."""

    law: str  # 民法典, 劳动合同法
    number: str  # 第586条
    gist: str


@with_config(KEEP_EXTRA)
class RiskFinding(FindingBase, total=False):
    """A statutory check that flags the contract, with its legal basis and evidence."""

    kind: Required[Literal["risk"]]
    source: Required[FindingSource]
    severity: str
    message: str
    basis: str  # the statute (民法典第586条 …)
    article: StatuteArticle
    contract_type: str  # lease | loan | labour | sale | general: which checks applied
    spans: list[list[int]]  # every piece of evidence


@with_config(KEEP_EXTRA)
class PlaybookFinding(FindingBase, total=False):
    """One rule of the organisation's playbook graded on the contract: acceptable, negotiate or escalate."""

    kind: Required[Literal["playbook"]]
    source: Required[FindingSource]
    rule_kind: str  # required_clause | limit | forum_city | deposit_cap | non_compete_compensation | preferred_wording
    title: str  # the policy point (违约金不超过合同价款的20%)
    grade: Literal["acceptable", "negotiate", "escalate"]
    message: str
    basis: str | None  # the statute where one applies (民法典第586条)
    article: StatuteArticle | None
    suggestion: str  # the playbook's preferred wording, when the point is not acceptable
    playbook: str  # the playbook and version that graded it (playbook.default@2026.1.0, organisation:acme@v3)
    contract_type: str
    spans: list[list[int]]  # every piece of evidence


@with_config(KEEP_EXTRA)
class TermFinding(FindingBase, total=False):
    """A key term of a contract (a party, a date, the price, 违约金 …) with its normalised value."""

    kind: Required[Literal["term"]]
    source: Required[FindingSource]
    value: Any  # the normalised value as JSON (party, money, rate, duration …; an ISO date as a string)
    normalised: str  # the value as one comparable string (2026-03-01, 3 year, CNY 100000, 0.0005/day)
    status: str  # agreed | blank (the template leaves the value empty)
    normalized_span: list[int]  # `span` in the normalized text


@with_config(KEEP_EXTRA)
class EntityFinding(FindingBase, total=False):
    """One entity group: a party with its roles, or an amount, date, duration, identifier with every mention."""

    kind: Required[Literal["entity"]]
    source: Required[FindingSource]
    text: str  # how the document names it (personal data: masked for who may not see it)
    value: Any  # the normalised value (CNY 50000, 2024-03-01)
    is_pii: bool
    mentions: list[dict[str, Any]]  # every mention (span, text, rule_id)
    roles: list[str]  # PARTY: the role words that refer to the party (甲方, 委托方)
    definition_span: list[int]  # PARTY: where the party is defined (甲方：某某公司)


class CategoryAlternative(TypedDict):
    """One ranked candidate category of a ticket, with its department and the level-2/3 names its text suggests."""

    label: str
    probability: float | None  # the classifier's calibrated probability; null without a classifier (rules only)
    department: str | None
    department_source: str  # organisation (its own table) | default (DocGate's level-1/2 defaults)
    level2: list[str]
    level3: list[str]


class CategoryRouting(TypedDict):
    """Whether the ticket is routed as classified or goes to a dispatcher: the classifier's probability of the
    category against that category's threshold (both null without a classifier)."""

    probability: float | None
    threshold: float | None
    needs_dispatcher: bool


@with_config(KEEP_EXTRA)
class CategoryFinding(FindingBase, total=False):
    """A ticket's category in the organiser's taxonomy, with the department it is routed to."""

    kind: Required[Literal["ticket_category"]]
    source: Required[FindingSource]
    level2: str | None
    level3: str | None
    department: str | None
    department_source: str  # organisation | default
    department_version: int | None  # the organisation's row version that named the department
    alternatives: list[CategoryAlternative]  # up to three, best first
    routing: CategoryRouting
    decided_by: str  # rules | classifier | both
    rules_label: str | None
    classifier_label: str | None
    model_version: str | None


@with_config(KEEP_EXTRA)
class UrgencyFinding(FindingBase, total=False):
    """A ticket's urgency and the cues that set it."""

    kind: Required[Literal["urgency"]]
    source: Required[FindingSource]
    cues: list[dict[str, Any]]


@with_config(KEEP_EXTRA)
class CaseFinding(FindingBase, total=False):
    """A ticket's repeat case (重复件): the case it belongs to, whether it joined as a repeat, the earlier tickets."""

    kind: Required[Literal["repeat_case"]]
    source: Required[FindingSource]
    case_id: str
    joined_by: str  # first | repeat | reviewer
    repeats: str | None  # the earlier ticket (document id) this one repeats
    earlier_tickets: list[dict[str, Any]]  # document_id, reference, created_at, joined_by; newest first
    similarity: dict[str, Any]  # text_similarity, shared_place, same_caller, score (a repeat's evidence)


# One finding of a result, typed by its `kind`.
Finding = Annotated[
    ClauseFinding
    | RiskFinding
    | TermFinding
    | PlaybookFinding
    | EntityFinding
    | CategoryFinding
    | UrgencyFinding
    | CaseFinding,
    Field(discriminator="kind"),
]


# Validates a finding as stored (a reviewer's correction must leave it one of its kind).
FINDING: TypeAdapter[Finding] = TypeAdapter(Finding)

# A finding as stored and read back (JSON: a reviewer's correction may have set any key to any value).
StoredFinding = Mapping[str, Any]


def _span(value: Any, length: int) -> tuple[int, int] | None:
    if not (isinstance(value, list | tuple) and len(value) == 2):
        return None
    start, end = value
    if not (isinstance(start, int) and isinstance(end, int)) or isinstance(start, bool) or isinstance(end, bool):
        return None
    start, end = max(0, start), min(length, end)
    return (start, end) if start < end else None


def finding_list(finding: StoredFinding, key: str) -> list[Any]:
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
    candidates.extend(finding_list(finding, "spans"))
    for item in [*finding_list(finding, "occurrences"), *finding_list(finding, "mentions")]:
        if isinstance(item, dict):
            words = item.get("match_span") if clause else None
            candidates.append(words if _span(words, length) else item.get("span"))
    evidence = finding.get("evidence")
    if isinstance(evidence, list):
        candidates.extend(item.get("span") for item in evidence if isinstance(item, dict))
    spans = [span for span in (_span(c, length) for c in candidates) if span is not None]
    return sorted(set(spans))


def span_original(normalized: NormalizedText, start: int, end: int) -> list[int]:
    """Map a span of the normalized text back onto what the user sent."""
    s, e = normalized.to_original(start, end)
    return [s, e]


def entity_finding(normalized: NormalizedText, group: EntityGroup) -> EntityFinding:
    """One entity group: label, display text, normalised value, every mention; a party's roles and definition.
    PII is flagged so that logs, exports and the portal mask the text of every mention."""
    first = group.definition or group.mentions[0]
    finding: EntityFinding = {
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
