"""Personal data: who sees it, and what a document's text and a result's data look like to those who do not.

One policy for the portal and the API. A member of the organisation sees personal data by role: reviewers and
admins in full, submitters masked. The organisation's API key is the enterprise system that sent the documents: it
sees them in full, as the webhooks it receives carry them. Masking keeps every string's length, so that spans still
point at the right places.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.db.models import Func, JSONField, OuterRef, QuerySet, Subquery
from django.db.models.fields.json import KeyTransform

from contracts.findings import StoredFinding, finding_list, finding_spans
from contracts.models import ApiKey, Document, Organisation, Result
from contracts.tenancy.memberships import REVIEWER_ROLES, reviewer_role
from rules.pii import mask_pii

MASK = "＊"
# Those who review a document read it as it was sent.
PERSONAL_DATA_ROLES = REVIEWER_ROLES
# A finding's keys that quote the document, or a reviewer's words about it: their strings pass through the masks.
# (`mentions`, `occurrences` and `cues` are lists of dicts: each string in them.)
QUOTE_KEYS = (
    "text",
    "evidence",
    "llm_evidence",
    "matched",
    "message",
    "review_note",
    "mentions",
    "occurrences",
    "cues",
)
# A personal-data entity's keys that say who or what it is: hidden altogether (its spans and label stay).
HIDDEN_KEYS = ("text", "value", "evidence", "llm_evidence")
# Shorter strings of a personal-data finding are not looked for elsewhere: one character would mask half the text.
MIN_KNOWN_LENGTH = 2
# A search over masked text reads at most this many documents whose text matches (newest first); see README.
MASKED_SEARCH_LIMIT = 1000
# A preview of a text is masked from a window this many times its length: the PII rules see each number, e-mail
# or cued name that starts inside the preview whole, and the context before it.
PREVIEW_WINDOW_FACTOR = 5


def role_sees_personal_data(role: str | None) -> bool:
    """Whether a member with this role in the organisation (None: not a member) sees personal data in full."""
    return role in PERSONAL_DATA_ROLES


def caller_sees_personal_data(*, organisation: Organisation, user: Any = None, api_key: ApiKey | None = None) -> bool:
    """Whether a caller acting for the organisation sees personal data in full: its own API key does, a user by
    their role in it."""
    if api_key is not None:
        return api_key.organisation_id == organisation.pk
    return role_sees_personal_data(reviewer_role(user=user, organisation=organisation))


def finding_is_personal(finding: Any) -> bool:
    """Whether a stored finding is an entity of personal data (as a reviewer's correction left it)."""
    return isinstance(finding, Mapping) and finding.get("kind") == "entity" and bool(finding.get("is_pii"))


def personal_strings(findings: Iterable[Any]) -> list[str]:
    """What the personal-data findings say (text, value, every mention's text), longest first: masked wherever
    else it is quoted."""
    found: set[str] = set()
    for finding in findings:
        if finding_is_personal(finding):
            mentions = [m.get("text") for m in finding_list(finding, "mentions") if isinstance(m, Mapping)]
            found.update(s for s in (finding.get("text"), finding.get("value"), *mentions) if isinstance(s, str))
    return sorted((s for s in found if len(s) >= MIN_KNOWN_LENGTH), key=len, reverse=True)


def _known_masked(original: str, chars: list[str], known: Iterable[str]) -> None:
    """Mask, in chars (original's characters, some already masked), every place original holds a known string."""
    for needle in known:
        start = original.find(needle)
        while start >= 0:
            chars[start : start + len(needle)] = MASK * len(needle)
            start = original.find(needle, start + 1)


def quote_masked(text: str, known: Sequence[str] = ()) -> str:
    """A quote from the document with its personal data masked: the PII rules plus the known personal strings."""
    masked = mask_pii(text)
    if not known:
        return masked
    chars = list(masked)
    _known_masked(text, chars, known)
    return "".join(chars)


def text_masked(text: str, findings: Iterable[Any]) -> str:
    """A document's text with its personal data masked, same length: the PII rules, the spans of its personal-data
    findings, and wherever else the text holds what those findings say."""
    personal = [f for f in findings if finding_is_personal(f)]
    masked = mask_pii(text)
    if not personal:
        return masked
    chars = list(masked)
    for finding in personal:
        for start, end in finding_spans(finding, len(chars)):
            chars[start:end] = MASK * (end - start)
    _known_masked(text, chars, personal_strings(personal))
    return "".join(chars)


def _strings_masked(value: Any, known: list[str]) -> Any:
    if isinstance(value, str):
        return quote_masked(value, known)
    if isinstance(value, list):
        return [_strings_masked(item, known) for item in value]
    if isinstance(value, Mapping):
        return {key: _strings_masked(item, known) for key, item in value.items()}
    return value


def _hidden(value: Any) -> Any:
    if isinstance(value, str) or (isinstance(value, int | float) and not isinstance(value, bool)):
        return MASK * len(str(value))
    if isinstance(value, list):
        return [_hidden(item) for item in value]
    if isinstance(value, Mapping):
        return {key: item if key == "span" else _hidden(item) for key, item in value.items()}
    return value


def _party_private(fields: StoredFinding) -> list[str]:
    """What a party key term holds of personal data: its credit code or ID number, and a person's name."""
    value = fields.get("value")
    if fields.get("kind") != "term" or fields.get("label") != "party" or not isinstance(value, Mapping):
        return []
    private = [value.get("identifier")] + ([value.get("name")] if value.get("is_person") else [])
    return [s for s in private if isinstance(s, str) and len(s) >= MIN_KNOWN_LENGTH]


def _fields_masked(fields: StoredFinding, known: list[str], personal: bool) -> dict[str, Any]:
    shown = dict(fields)
    if private := _party_private(fields):
        # A party's credit code / ID (and a person's name) are hidden in its value and wherever it is quoted.
        known = sorted({*known, *private}, key=len, reverse=True)
        value = dict(fields["value"])
        for key in ("identifier", "name") if value.get("is_person") else ("identifier",):
            if isinstance(value.get(key), str):
                value[key] = _hidden(value[key])
        shown["value"] = value
        if isinstance(fields.get("normalised"), str):
            shown["normalised"] = quote_masked(fields["normalised"], known)
    for key in QUOTE_KEYS:
        if key in shown:
            shown[key] = _strings_masked(shown[key], known)
    if personal:
        for key in HIDDEN_KEYS:
            if key in shown:
                shown[key] = _hidden(shown[key])
        if isinstance(shown.get("mentions"), list):
            shown["mentions"] = [
                {**m, "text": _hidden(m["text"])} if isinstance(m, Mapping) and "text" in m else m
                for m in shown["mentions"]
            ]
    if isinstance(original := fields.get("original"), Mapping):  # a correction's previous values
        shown["original"] = _fields_masked(original, known, personal or bool(original.get("is_pii")))
    return shown


def finding_masked(finding: StoredFinding, known: list[str] | None = None) -> dict[str, Any]:
    """A stored finding as those who may not see personal data see it: a personal-data entity's text, value,
    evidence and mentions' text hidden; every quote passed through the PII rules and the known personal strings
    (by default what this finding itself says)."""
    known = personal_strings([finding]) if known is None else known
    return _fields_masked(finding, known, finding_is_personal(finding))


def result_data_masked(data: Mapping[str, Any]) -> dict[str, Any]:
    """A result's stored data as those who may not see personal data see it: its findings and rejected findings
    masked (`finding_masked`), its suggested response passed through the masks."""
    findings = finding_list(data, "findings")
    rejected = finding_list(data, "rejected_findings")
    known = personal_strings([*findings, *rejected])
    shown = dict(data)
    for key, stored in (("findings", findings), ("rejected_findings", rejected)):
        if key in shown and stored:
            shown[key] = [finding_masked(f, known) if isinstance(f, Mapping) else f for f in stored]
    if isinstance(response := data.get("suggested_response"), str):
        shown["suggested_response"] = quote_masked(response, known)
    return shown


def preview_masked(text: str, findings: Iterable[Any], length: int) -> str:
    """The first `length` characters of a document's text masked as `text_masked` masks the whole (a list row
    shows them), masked from a window of the text only."""
    return text_masked(text[: length * PREVIEW_WINDOW_FACTOR], findings)[:length]


class _PersonalFindings(Func):
    """A result's findings that may be personal data. PostgreSQL picks the entities not marked `is_pii: false` out
    of `data` itself, which spares reading the articles a contract's clause findings quote (a tenth of the cost in
    tests/benchmarks/bench_masked_search.py); elsewhere every finding comes back. `finding_is_personal` decides."""

    output_field = JSONField()
    template = "%(expressions)s"  # the findings as they are
    # Entities whose is_pii is true or anything but false/null: a correction may have stored "yes" or 1. A constant
    # of ours, written into the SQL as a literal.
    PATH = '$[*] ? (@.kind == "entity" && (@.is_pii == true || (@.is_pii == false) is unknown))'

    def __init__(self) -> None:
        super().__init__(KeyTransform("findings", "data"))

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> tuple[str, Any]:
        template = f"jsonb_path_query_array(%(expressions)s, '{self.PATH}'::jsonpath)"
        return self.as_sql(compiler, connection, template=template, **extra_context)


def latest_personal_findings(document: str = "pk") -> Subquery:
    """An annotation: the findings that may be personal data of the latest result of the document at `document`
    (an OuterRef path); what `text_masked` needs of a result."""
    latest = Result.objects.filter(document=OuterRef(document)).order_by("-version")
    return Subquery(latest.annotate(personal=_PersonalFindings()).values("personal")[:1], output_field=JSONField())


def document_text_masked(document: Document) -> str:
    """The document's text masked by its latest result's findings (the PII rules alone before its first result)."""
    result = document.latest_result()
    return text_masked(document.text, finding_list(result.data or {}, "findings") if result is not None else [])


def documents_matching_masked(documents: QuerySet[Document], query: str) -> list[uuid.UUID]:
    """The ids of the documents whose masked text holds the query, ignoring case: the database finds those whose
    text holds it, the newest `MASKED_SEARCH_LIMIT` of them are masked and looked at again."""
    candidates = (
        documents.filter(text__icontains=query)
        .order_by("-created_at")
        .annotate(masking_findings=latest_personal_findings())
        .values_list("pk", "text", "masking_findings")[:MASKED_SEARCH_LIMIT]
    )
    wanted = query.casefold()
    return [
        pk
        for pk, text, findings in candidates
        if wanted in text_masked(text, findings if isinstance(findings, list) else []).casefold()
    ]
