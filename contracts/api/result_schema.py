"""The OpenAPI description of a result's `data`, derived from the typed result (`contracts.result_data`).

`ResultDataField` hands the stored JSON out as it is (a result is written once, through `contracts.result_versions`,
and never reshaped on the way out); its schema is `ResultData`'s, which drf-spectacular reads from pydantic, with
`Finding` and the other nested types as named components.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from pydantic import TypeAdapter
from rest_framework import serializers

from contracts.findings import Finding
from contracts.result_data import ResultData

COMPONENT_REF = "#/components/schemas/{model}"  # where drf-spectacular's pydantic extension puts nested types


# A pydantic model: drf-spectacular's pydantic extension reads it (its stubs name serializers and fields only).
@extend_schema_field(ResultData)  # type: ignore[arg-type]
class ResultDataField(serializers.JSONField):
    """A result's stored data, sent as it is; described by `ResultData`."""


def _findings_schema() -> dict[str, Any]:
    """A list of findings, each one of the per-kind types `ResultData` registers as components."""
    schema = TypeAdapter(list[Finding]).json_schema(ref_template=COMPONENT_REF, mode="serialization")
    schema.pop("$defs", None)  # the same components ResultData's schema adds
    return schema


@extend_schema_field(_findings_schema())
class FindingsField(serializers.JSONField):
    """A result's findings as stored (`Finding`: ClauseFinding, RiskFinding, EntityFinding, …, by `kind`)."""
