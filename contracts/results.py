"""Result versions: every writer (the pipeline, a review) stores a document's next version through here."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Max

from contracts.models import Result


def result_write(
    *,
    organisation_id: int,
    document_id: uuid.UUID,
    job_id: uuid.UUID,
    data: dict[str, Any],
    provenance: dict[str, Any],
    created_by: Any = None,
    final: bool = True,
) -> Result:
    """Store the document's next result version (its latest plus one). Call inside the transaction that makes
    the new version official; the unique (document, version) constraint refuses a concurrent duplicate."""
    latest = Result.objects.filter(document_id=document_id).aggregate(v=Max("version"))["v"] or 0
    return Result.objects.create(
        organisation_id=organisation_id,
        document_id=document_id,
        job_id=job_id,
        version=latest + 1,
        final=final,
        data=data,
        provenance=provenance,
        created_by=created_by,
    )
