"""Operator probes: /healthz (the process answers) and /readyz (database, broker, LLM breaker, safety model)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

from contracts.intake.isolation import isolation
from contracts.intake.sandbox import CONVERTERS, converter_status
from contracts.llm import llm_breaker_snapshot
from rules.safety.model import SafetyModelError, load_safety_model

BROKER_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Check:
    """One dependency's state: ok decides readiness, detail says why."""

    ok: bool
    status: str
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "status": self.status, **({"detail": self.detail} if self.detail else {})}


def database_check() -> Check:
    """Connect and run SELECT 1."""
    try:
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return Check(False, "unreachable", type(exc).__name__)
    return Check(True, "ok", connection.vendor)


def broker_check() -> Check:
    """The file queue's folders must be writable; a network broker must accept a connection within 2 s."""
    url = str(settings.CELERY_BROKER_URL)
    if url.startswith("filesystem://"):
        options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
        folders = {str(options.get(name, "")) for name in ("data_folder_in", "data_folder_out")}
        missing = sorted(f for f in folders if not (f and os.path.isdir(f) and os.access(f, os.W_OK)))
        return Check(False, "unwritable", ", ".join(missing)) if missing else Check(True, "ok", "filesystem")

    try:
        with Connection(url, connect_timeout=BROKER_TIMEOUT_S) as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT_S)
    except Exception as exc:
        return Check(False, "unreachable", type(exc).__name__)
    return Check(True, "ok", url.split("://", 1)[0])


def llm_check() -> Check:
    """Unhealthy while this process's breaker is open; `disabled` (healthy) when the LLM is switched off."""
    if not settings.LLM_ENABLED:
        return Check(True, "disabled")

    state = str(llm_breaker_snapshot()["state"])
    return Check(state != "open", state)


def safety_model_check() -> Check:
    """The shipped safety classifier loads (without it every text goes to review)."""

    try:
        model = load_safety_model()
    except SafetyModelError as exc:
        return Check(False, "unusable", str(exc)[:200])
    return Check(True, "ok", model.version)


READINESS_CHECKS: dict[str, Callable[[], Check]] = {
    "database": database_check,
    "broker": broker_check,
    "llm": llm_check,
    "safety_model": safety_model_check,
}


def readiness() -> tuple[bool, dict[str, Any]]:
    """Run every check; return whether all passed and each one's state."""
    checks = {name: check() for name, check in READINESS_CHECKS.items()}
    return all(c.ok for c in checks.values()), {name: c.as_dict() for name, c in checks.items()}


def converters() -> dict[str, Any]:
    """The outside converters and whether each is installed: a missing one refuses its input types (scans and
    images; .doc, .wps, .rtf, .odt) with what to install, and does not make the service unready. `isolation` is
    how they are confined (bwrap, landlock, unshare or none), `isolation_lacks` what that level does not give."""
    states = {name: converter_status(name) for name in CONVERTERS}
    listed: dict[str, Any] = {
        name: {"available": state.available, "detail": state.detail} for name, state in states.items()
    }
    confinement = isolation()
    listed["network_isolation"] = confinement.network_isolated
    listed["isolation"] = confinement.level
    listed["isolation_lacks"] = list(confinement.lacks)
    listed["isolation_detail"] = confinement.detail
    return listed


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is up and serving requests (/healthz, and /livez for Kubernetes' liveness probe)."""
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the database, broker, LLM and safety model are usable, 503 with the failing check otherwise; the
    converters (OCR, LibreOffice) are listed either way."""
    ok, checks = readiness()
    body = {"status": "ready" if ok else "unavailable", "checks": checks, "converters": converters()}
    return JsonResponse(body, status=200 if ok else 503)
