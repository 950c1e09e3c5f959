"""The organisation's reviewer examples as JSONL rows, personal data masked unless the exporter's role sees it
(`contracts.tenancy.personal_data`, the one masking policy)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from contracts.findings import finding_list
from contracts.models import Organisation, ReviewerExample
from contracts.tenancy.personal_data import finding_masked, personal_strings, quote_masked, text_masked

BATCH = 200


def _example_masked(row: dict[str, Any], findings: list[Any]) -> dict[str, Any]:
    """A row as those who may not see personal data see it: the text, labels, note and finding masked."""
    known = personal_strings(findings)
    detail = dict(row["detail"])
    if isinstance(finding := detail.get("finding"), Mapping):
        detail["finding"] = finding_masked(finding, known)
    if isinstance(corrected := detail.get("corrected"), Mapping):
        detail["corrected"] = finding_masked(corrected, known)
    if isinstance(note := detail.get("note"), str):
        detail["note"] = quote_masked(note, known)
    document = {**row["document"], "text": text_masked(row["document"]["text"], findings)}
    return {
        **row,
        "label": quote_masked(row["label"], known),
        "previous": quote_masked(row["previous"], known),
        "detail": detail,
        "document": document,
    }


def reviewer_examples_rows(
    *, organisation: Organisation, sees_personal_data: bool, kinds: Sequence[str] = ()
) -> Iterator[dict[str, Any]]:
    """Every example of the organisation, oldest first: the decision, labels, its document and versions."""
    examples = (
        ReviewerExample.objects.filter(organisation=organisation)
        .select_related("document", "reviewed_result", "reviewer")
        .order_by("created_at", "id")
    )
    if kinds:
        examples = examples.filter(kind__in=list(kinds))
    for example in examples.iterator(chunk_size=BATCH):
        document = example.document
        row = {
            "id": example.pk,
            "kind": example.kind,
            "decision": example.decision,
            "label": example.label,
            "previous": example.previous,
            "finding_id": example.finding_id or None,
            "finding_kind": example.finding_kind or None,
            "document": {"id": str(document.pk), "kind": document.kind, "text": document.text},
            "judged_version": example.judged_version,
            "reviewed_version": example.reviewed_result.version,
            "reviewer": example.reviewer.get_username() if example.reviewer is not None else None,
            "created_at": example.created_at.isoformat(),
            "detail": example.detail or {},
        }
        if sees_personal_data:
            yield row
            continue
        # The reviewed result's personal-data findings say what to mask beyond the PII rules.
        yield _example_masked(row, finding_list(example.reviewed_result.data or {}, "findings"))


def reviewer_examples_jsonl(**kwargs: Any) -> Iterator[str]:
    """The rows of `reviewer_examples_rows`, one JSON line each."""
    for row in reviewer_examples_rows(**kwargs):
        yield json.dumps(row, ensure_ascii=False) + "\n"
