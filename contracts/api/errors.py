"""One JSON error shape for every API failure: {"error": {"code", "message", "fields"?}}."""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from contracts.refusals import Refused

# DRF messages its own Chinese catalog lacks or gets wrong (it has "Null characters" as 空字符串, the empty string);
# named here so that makemessages keeps DocGate's translations of them, which take precedence (LOCALE_PATHS).
DRF_MESSAGES_TRANSLATED = (
    gettext_noop("Null characters are not allowed."),
    gettext_noop("JSON parse error - {detail}"),
)


def error_response(code: str, message: str, http_status: int, **extra: Any) -> Response:
    """Build the standard error body."""
    return Response({"error": {"code": code, "message": message, **extra}}, status=http_status)


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for field, value in detail.items():
            return f"{field}: {_first_message(value)}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Translate DRF exceptions and DocGate's refusals (intake, re-run, …) into the standard error body."""
    if isinstance(exc, Refused):
        return error_response(exc.code, exc.message, exc.status)
    response = exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"error": {"code": "invalid", "message": _first_message(exc.detail), "fields": exc.detail}}
    else:
        detail = getattr(exc, "detail", str(exc))
        code = detail.code if hasattr(detail, "code") else "error"
        message = str(detail)
        if isinstance(exc, Http404):
            # A lookup of an id that is not a UUID raises a bare Http404, which has no message of its own; another
            # one's ("No Document matches the given query.") is Django's, in English only.
            code, message = "not_found", _("Not found.")
        elif response.status_code == status.HTTP_404_NOT_FOUND:
            code, message = "not_found", message or _("Not found.")
        response.data = {"error": {"code": str(code), "message": message}}
    return response


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 for a path no route answers: the API's JSON error under /api/, the portal's page elsewhere."""
    if request.path.startswith("/api/"):
        body = {"error": {"code": "not_found", "message": _("Not found.")}}
        return JsonResponse(body, status=404, json_dumps_params={"ensure_ascii": False})
    return defaults.page_not_found(request, exception)
