"""Operator probes: /healthz (the process answers) and /readyz (database, broker, safety model; the model server
and this process's breaker reported beside them).

Why a dead or loading model does not make /readyz 503: readiness tells a load balancer or an orchestrator whether
to send this web process traffic, and without the model the web still does all it does — it takes uploads, serves
results and the review queue, and calls no model itself. Jobs wait for the model (DOCGATE_LLM_WAIT_MAX_S) and then
go to review. Pulling every web process out of rotation during a model outage, or for the minutes vLLM takes to
load, would turn a delay into an outage. So `llm` carries `"required": false`: its state (`up`, `loading`, `down`)
is the model server's own answer, for operators and their alerts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

from contracts.hotline.deadlines.calendar import calendar_coverage
from contracts.intake.isolation import isolation
from contracts.intake.sandbox import CONVERTERS, converter_status
from contracts.llm import llm_breaker_snapshot, llm_client
from contracts.standing.policy import standings
from inference.client import ServerState
from rules.normalize.compiled import kernels_status
from rules.safety.model import SafetyModelError, load_safety_model

BROKER_TIMEOUT_S = 2.0
# The model server is asked at most this often per process, each time within the timeout (a probe every second
# from a load balancer costs it one small GET per few seconds).
LLM_PROBE_TIMEOUT_S = 1.5
LLM_PROBE_CACHE_S = 5.0


@dataclass(frozen=True)
class Check:
    """One dependency's state: ok decides readiness, detail says why."""

    ok: bool
    status: str
    detail: str = ""
    required: bool = True  # False: reported, but not a reason to be unready
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"ok": self.ok, "status": self.status}
        if self.detail:
            shown["detail"] = self.detail
        if not self.required:
            shown["required"] = False
        return {**shown, **self.extra}


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


_probe_lock = threading.Lock()
_probe: tuple[float, tuple[str, str], ServerState] | None = None


def llm_server_state() -> ServerState:
    """The model server's state as it answered at most LLM_PROBE_CACHE_S ago (asked again after that)."""
    global _probe
    where = (settings.LLM_BASE_URL, settings.LLM_MODEL)
    with _probe_lock:
        if _probe is not None and _probe[1] == where and time.monotonic() - _probe[0] < LLM_PROBE_CACHE_S:
            return _probe[2]
    state = llm_client().server_state(timeout_s=LLM_PROBE_TIMEOUT_S)
    with _probe_lock:
        _probe = (time.monotonic(), where, state)
    return state


def llm_probe_forget() -> None:
    """Drop the remembered answer, so that the next check asks the server (tests)."""
    global _probe
    with _probe_lock:
        _probe = None


def llm_check() -> Check:
    """The model server's own answer (`up`, `loading`, `down`) and this process's breaker; never required (see
    the module's docstring). `disabled` when the LLM is switched off."""
    if not settings.LLM_ENABLED:
        return Check(True, "disabled")
    state = llm_server_state()
    breaker = str(llm_breaker_snapshot()["state"])
    return Check(state.status == "up", state.status, state.detail, required=False, extra={"breaker": breaker})


def safety_model_check() -> Check:
    """The shipped safety classifier loads (without it every text goes to review)."""

    try:
        model = load_safety_model()
    except SafetyModelError as exc:
        return Check(False, "unusable", str(exc)[:200])
    return Check(True, "ok", model.version)


def work_calendar_check() -> Check:
    """Whether the holiday calendar knows this year and the next officially (see contracts.hotline.deadlines.
    calendar); never required: deadlines are still counted, on weekends and the statutory holidays."""
    try:
        coverage = calendar_coverage(timezone.localdate())
    except DatabaseError as exc:
        return Check(False, "unknown", type(exc).__name__, required=False)
    gaps = [year.describe() for year in coverage if not year.complete]
    years = {str(year.year): "official" if year.complete else year.pack_status or "missing" for year in coverage}
    status = "incomplete" if gaps else "complete"
    return Check(not gaps, status, "; ".join(gaps), required=False, extra={"years": years})


def normalizer_check() -> Check:
    """Whether the normalizer runs its compiled kernels (`make kernels`); never required: its Python code gives the
    same results, slower (~0.36x of OpenCC t2s per document instead of ~0.53x)."""
    status = kernels_status()
    if status == "compiled":
        return Check(True, status, required=False)
    return Check(False, status, "compiled kernels not built or stale (make kernels)", required=False)


READINESS_CHECKS: dict[str, Callable[[], Check]] = {
    "database": database_check,
    "broker": broker_check,
    "llm": llm_check,
    "safety_model": safety_model_check,
    "work_calendar": work_calendar_check,
    "normalizer": normalizer_check,
}


def readiness() -> tuple[bool, dict[str, Any]]:
    """Run every check; return whether every required one passed, and each one's state."""
    checks = {name: check() for name, check in READINESS_CHECKS.items()}
    ready = all(c.ok for c in checks.values() if c.required)
    return ready, {name: c.as_dict() for name, c in checks.items()}


def converters() -> dict[str, Any]:
    """The outside converters and whether each is installed: a missing one refuses its input types (scans and
    images; .doc, .wps, .rtf, .odt) and, for `office`, a contract report's PDF (503) with what to install, and
    does not make the service unready. `isolation` is
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
    """200 when the database, broker and safety model are usable, 503 with the failing check otherwise; the model
    server's state, the converters (OCR, LibreOffice) and each organisation's questions to the model (asked, or
    rules-only by policy: `contracts.standing`) are listed either way."""
    ok, checks = readiness()
    body: dict[str, Any] = {"status": "ready" if ok else "unavailable", "checks": checks, "converters": converters()}
    if checks["database"]["ok"]:
        body["llm_standing"] = [standing.as_dict() for standing in standings()]
    return JsonResponse(body, status=200 if ok else 503)
