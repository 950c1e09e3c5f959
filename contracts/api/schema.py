"""OpenAPI extras for generated clients: the API-key security scheme, and query enums named like the schema's."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """`Authorization: Api-Key <key>` (contracts.api.auth.ApiKeyAuthentication) as an OpenAPI `apiKey` scheme."""

    target_class = "contracts.api.auth.ApiKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "The word `Api-Key`, a space, then the key: `Authorization: Api-Key dg_xxxxxxxx.secret`.",
        }


def query_enums_named(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Point a query parameter's inline enum at the enum component with the same values (the `status` filter is
    `JobStateEnum`, as in the job), so that clients get one type for both instead of one per parameter."""
    components = result.get("components", {}).get("schemas", {})
    by_values = {
        frozenset(schema["enum"]): name
        for name, schema in components.items()
        if "enum" in schema and None not in schema["enum"]
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = parameter.get("schema", {})
                name = by_values.get(frozenset(schema.get("enum", ())))
                if name is not None:
                    parameter["schema"] = {"$ref": f"#/components/schemas/{name}"}
    return result
