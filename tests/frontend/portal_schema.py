"""An OpenAPI 3 description of the portal's form endpoints, built from the URLconf and the views' form classes.

No schema describes the portal, so the fuzz test (test_portal_fuzz.py) builds one: each route's path parameters
come from its URL converters, each POST body from the form class its view binds (fields, types, choices, max
lengths, required), each GET query from the filters the view reads. Every route is either described here or left
out in NOT_FUZZED with the reason, and test_portal_fuzz checks that no route is forgotten.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from django import forms
from django.contrib.auth import forms as auth_forms
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter, UUIDConverter

from frontend import forms as portal_forms

# Objects the fuzz world creates with these fixed keys, so that generated paths name real rows as well as random
# ones: Acme's (the actors' own organisation) and Globex's (another organisation, which must stay invisible).
ACME_DOCUMENT = uuid.UUID("0a000000-0000-4000-8000-000000000001")
ACME_JOB = uuid.UUID("0a000000-0000-4000-8000-000000000002")
ACME_TASK = uuid.UUID("0a000000-0000-4000-8000-000000000003")
GLOBEX_DOCUMENT = uuid.UUID("0b000000-0000-4000-8000-000000000001")
GLOBEX_JOB = uuid.UUID("0b000000-0000-4000-8000-000000000002")
GLOBEX_TASK = uuid.UUID("0b000000-0000-4000-8000-000000000003")
ACME_KEY, GLOBEX_KEY = 910_001, 920_001
ACME_MEMBERSHIP, GLOBEX_MEMBERSHIP = 910_011, 920_011  # Acme's: a submitter's; Globex's: its admin's
ACME_IDS = frozenset({str(ACME_DOCUMENT), str(ACME_JOB), str(ACME_TASK), str(ACME_KEY), str(ACME_MEMBERSHIP)})
KNOWN_UUIDS = [str(i) for i in (ACME_DOCUMENT, ACME_JOB, ACME_TASK, GLOBEX_DOCUMENT, GLOBEX_JOB, GLOBEX_TASK)]
KNOWN_INTS = [ACME_KEY, GLOBEX_KEY, ACME_MEMBERSHIP, GLOBEX_MEMBERSHIP]
FINDING_IDS = ["F1", "F2", "F3"]

URLENCODED = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
TEXT: dict[str, Any] = {"type": "string"}


@dataclass(frozen=True)
class Form:
    """One method of a route: the form class the view binds and the extra fields it reads beside it."""

    method: str
    form: type[forms.Form] | None = None
    extra: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    media: tuple[str, ...] = (URLENCODED, MULTIPART)


JOB_QUERY: dict[str, dict[str, Any]] = {"page": TEXT, "partial": {"anyOf": [{"enum": ["rows"]}, TEXT]}}
FORM_ROUTES: dict[str, tuple[Form, ...]] = {
    # frontend/urls.py
    "home": (Form("get"),),
    "organisation_switch": (
        Form(
            "post",
            portal_forms.OrganisationSwitchForm,
            extra={"organisation": {"anyOf": [{"enum": ["acme", "globex"]}, TEXT]}, "next": TEXT},
        ),
    ),
    "submit": (Form("get"), Form("post", portal_forms.TicketForm)),
    "upload": (Form("post", extra={"file": {"type": "string", "format": "binary"}}, media=(MULTIPART,)),),
    "jobs": (Form("get", portal_forms.JobFilterForm, extra=JOB_QUERY),),
    "hotspots": (Form("get", portal_forms.HotspotFilterForm),),
    "dispatch": (Form("get", portal_forms.DispatchFilterForm),),
    "search": (Form("get", portal_forms.SearchForm),),
    "term_grid": (Form("get", portal_forms.TermGridFilterForm, extra={"page": TEXT}),),
    "term_grid_export": (Form("get", portal_forms.TermGridFilterForm),),
    "term_cell_decide": (Form("post", portal_forms.TermCellForm),),
    "result": (Form("get", extra={"v": {"anyOf": [{"enum": ["1", "2"]}, TEXT]}}),),
    "result_report": (Form("get"),),
    "job_llm_rerun": (Form("post"),),
    "review_queue": (Form("get", extra={"show": {"anyOf": [{"enum": ["open", "finalized"]}, TEXT]}}),),
    "review_task": (Form("get"),),
    "review_claim": (Form("post"),),
    "review_release": (Form("post"),),
    "review_decide": (
        Form("post", portal_forms.DecisionForm, extra={"finding_id": {"anyOf": [{"enum": FINDING_IDS}, TEXT]}}),
    ),
    "review_response": (Form("post", portal_forms.ResponseForm),),
    "review_finalize": (Form("post"),),
    "cases": (Form("get"),),
    "case": (Form("get"),),
    "case_merge": (Form("post", portal_forms.CaseMergeForm),),
    "case_split": (Form("post", portal_forms.CaseSplitForm),),
    "org_settings": (Form("get"),),
    "org_key_create": (Form("post", portal_forms.ApiKeyForm),),
    "org_key_revoke": (Form("post"),),
    "org_webhook": (Form("post", portal_forms.WebhookForm),),
    "org_member_invite": (
        Form("post", portal_forms.MemberInviteForm, extra={"invitee": {"anyOf": [{"enum": ["alice", "oscar"]}, TEXT]}}),
    ),
    "org_invitation_withdraw": (Form("post"),),
    "invitations": (Form("get"),),
    "invitation_accept": (Form("post"),),
    "invitation_decline": (Form("post"),),
    "org_member_role": (Form("post", portal_forms.MemberRoleForm),),
    "org_member_remove": (Form("post"),),
    # django.contrib.auth.urls and i18n, as the portal mounts them
    "login": (Form("get", extra={"next": TEXT}), Form("post", auth_forms.AuthenticationForm, extra={"next": TEXT})),
    "logout": (Form("post", extra={"next": TEXT}),),
    "password_change": (Form("get"), Form("post", auth_forms.PasswordChangeForm)),
    "password_change_done": (Form("get"),),
    "password_reset": (Form("get"), Form("post", auth_forms.PasswordResetForm)),
    "password_reset_done": (Form("get"),),
    "password_reset_confirm": (Form("get"), Form("post", auth_forms.SetPasswordForm)),
    "password_reset_complete": (Form("get"),),
    "set_language": (Form("post", extra={"language": {"anyOf": [{"enum": ["en", "zh-hans"]}, TEXT]}, "next": TEXT}),),
}
NOT_FUZZED = {
    "admin": "Django's own admin site, not the portal",
    "api": "the DRF API has its own schema; tests/api/test_schemathesis.py fuzzes it",
    "healthz": "operator probe without input; tests/frontend/test_operators.py",
    "livez": "the same probe as healthz, by the name Kubernetes liveness probes use",
    "readyz": "operator probe without input that answers 503 by design when a dependency is down",
    "metrics": "operator scrape endpoint without form input; tests/frontend/test_metrics_*.py",
}


@dataclass(frozen=True)
class Route:
    """One named route of the URLconf: its name, OpenAPI path template and path parameter converters."""

    name: str
    path: str
    converters: Mapping[str, object]


def portal_routes(resolvers: list[URLPattern | URLResolver] | None = None, prefix: str = "") -> Iterator[Route]:
    """Every named route under the root URLconf, with its converters (a mounted app's prefix is one route too)."""
    for entry in get_resolver().url_patterns if resolvers is None else resolvers:
        route = str(entry.pattern)
        if isinstance(entry, URLResolver):
            mount = entry.app_name or route.split("/")[0]
            if mount in NOT_FUZZED:
                yield Route(mount, prefix + route, {})
                continue
            yield from portal_routes(entry.url_patterns, prefix + route)
        elif entry.name and route.startswith("^"):
            yield Route(entry.name, "/" + prefix + _regex_template(route), _regex_parameters(route))
        elif entry.name:
            template = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", prefix + route)
            yield Route(entry.name, "/" + template, dict(entry.pattern.converters))


_REGEX_GROUP = re.compile(r"\(\?P<(?P<name>\w+)>(?P<body>[^)]*)\)")


def _regex_template(route: str) -> str:
    """A re_path route as a path template: ^documents/(?P<document_id>…)/report\\.(?P<file_format>docx|pdf)$ →
    documents/{document_id}/report.{file_format}."""
    return _REGEX_GROUP.sub(r"{\g<name>}", route).removeprefix("^").removesuffix("$").replace("\\.", ".")


def _regex_parameters(route: str) -> dict[str, object]:
    """Each named group of a re_path route: its alternatives (docx|pdf) as a tuple, or a UUID's converter."""
    return {
        m["name"]: tuple(m["body"].split("|")) if re.fullmatch(r"[\w|]+", m["body"]) else UUIDConverter()
        for m in _REGEX_GROUP.finditer(route)
    }


def _path_parameter(name: str, converter: object) -> dict[str, Any]:
    if isinstance(converter, UUIDConverter):
        schema: dict[str, Any] = {"anyOf": [{"enum": KNOWN_UUIDS}, {"type": "string", "format": "uuid"}]}
    elif isinstance(converter, tuple):  # a re_path group's alternatives
        schema = {"anyOf": [{"enum": list(converter)}, TEXT]}
    elif isinstance(converter, IntConverter):
        schema = {"anyOf": [{"enum": KNOWN_INTS}, {"type": "integer"}]}
    elif name == "finding_id":  # a finding of a document's result (F1 …)
        schema = {"anyOf": [{"enum": FINDING_IDS}, TEXT]}
    else:
        schema = TEXT
    return {"name": name, "in": "path", "required": True, "schema": schema}


def field_schema(form_field: forms.Field) -> dict[str, Any]:
    """The JSON schema of what a browser may send for one form field."""
    if isinstance(form_field, forms.BooleanField):
        return {"type": "boolean"}
    if isinstance(form_field, forms.ChoiceField):
        choices = cast(list[tuple[object, object]], form_field.choices)  # plain pairs in every portal form
        return {"type": "string", "enum": [str(value) for value, _label in choices]}
    if isinstance(form_field, forms.FileField):
        return {"type": "string", "format": "binary"}
    schema: dict[str, Any] = {"type": "string"}
    if isinstance(form_field, forms.URLField):
        schema["format"] = "uri"
    elif isinstance(form_field, forms.EmailField):
        schema["format"] = "email"
    if max_length := getattr(form_field, "max_length", None):
        schema["maxLength"] = max_length
    return schema


def _fields(spec: Form) -> dict[str, Any]:
    """Properties and required names for the form's fields and the extras the view reads beside them."""
    base = spec.form.base_fields if spec.form else {}
    properties = {name: field_schema(form_field) for name, form_field in base.items()}
    properties.update(spec.extra)
    required = [name for name, form_field in base.items() if form_field.required] + list(spec.required)
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _operation(route: Route, spec: Form) -> dict[str, Any]:
    parameters = [_path_parameter(name, converter) for name, converter in route.converters.items()]
    operation: dict[str, Any] = {
        "operationId": f"{route.name}_{spec.method}",
        "responses": {"default": {"description": "any"}},
    }
    if spec.method == "get":
        body = _fields(spec)
        parameters += [
            {"name": name, "in": "query", "required": name in body["required"], "schema": schema}
            for name, schema in body["properties"].items()
        ]
    elif spec.form or spec.extra:
        schema = _fields(spec)
        operation["requestBody"] = {"required": True, "content": {media: {"schema": schema} for media in spec.media}}
    operation["parameters"] = parameters
    return operation


def portal_openapi() -> dict[str, Any]:
    """The OpenAPI 3 document of every fuzzed route; raises KeyError for a route that is neither fuzzed nor excused."""
    paths: dict[str, dict[str, Any]] = {}
    for route in portal_routes():
        if route.name in NOT_FUZZED:
            continue
        for spec in FORM_ROUTES[route.name]:
            paths.setdefault(route.path, {})[spec.method] = _operation(route, spec)
    return {"openapi": "3.0.3", "info": {"title": "DocGate portal forms", "version": "1"}, "paths": paths}
