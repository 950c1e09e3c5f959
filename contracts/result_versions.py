"""Result versions: every writer (the pipeline, a review) stores a document's next version through here, from
the typed `ResultData`."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Max

from contracts.desks import desk_for
from contracts.models import Document, Result
from contracts.result_data import ResultData


def result_write(
    *,
    organisation_id: int,
    document_id: uuid.UUID,
    job_id: uuid.UUID,
    data: ResultData,
    provenance: dict[str, Any],
    created_by: Any = None,
    final: bool = True,
    gate_decision: str = "",
) -> Result:
    """Store the document's next result version (its latest plus one). Call inside the transaction that makes
    the new version official; the unique (document, version) constraint refuses a concurrent duplicate.
    `gate_decision` is given for a pipeline run's final result only (what /metrics counts). The document's desk
    then derives what it keeps from its newest result (`Desk.result_stored`: a ticket's deadline)."""
    latest = Result.objects.filter(document_id=document_id).aggregate(v=Max("version"))["v"] or 0
    result = Result.objects.create(
        organisation_id=organisation_id,
        document_id=document_id,
        job_id=job_id,
        version=latest + 1,
        final=final,
        data=data.as_json(),
        provenance=provenance,
        gate_decision=gate_decision,
        created_by=created_by,
    )
    result.document = Document.objects.get(pk=document_id)
    desk_for(result.document.kind).result_stored(result)
    return result


def result_gate_decision(data: ResultData) -> str:
    """The gate's decision a result's data records (`unknown` where it records none), as /metrics labels it."""
    return data.gate.decision if data.gate is not None else "unknown"
