"""The OpenAPI description of a result's `data`, derived from the typed result (`contracts.result_data`).

`ResultDataField` hands the stored JSON out as it is (a result is written once, through `contracts.result_versions`,
and never reshaped on the way out); its schema is `ResultData`'s, which drf-spectacular reads from pydantic, with
`Finding` and the other nested types as named components.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from contracts.result_data import ResultData


# A pydantic model: drf-spectacular's pydantic extension reads it (its stubs name serializers and fields only).
@extend_schema_field(ResultData)  # type: ignore[arg-type]
class ResultDataField(serializers.JSONField):
    """A result's stored data, sent as it is; described by `ResultData`."""


@extend_schema_field({"type": "array", "items": {"$ref": "#/components/schemas/Finding"}})
class FindingsField(serializers.JSONField):
    """A result's findings as stored (`Finding`, the component `ResultData` names)."""
