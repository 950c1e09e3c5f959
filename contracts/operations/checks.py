"""System checks: `manage.py check` warns about settings that cannot work."""

from __future__ import annotations

from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register
from django.db import DEFAULT_DB_ALIAS, DatabaseError
from django.utils import timezone

from contracts.hotline.deadlines.calendar import calendar_coverage, pack_coverage
from rules.safety.decision import Kind, kind_policy

LLM_ENGINES = ("vllm", "llamacpp")


@register(Tags.database)
def docgate_calendar_check(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Warning]:
    """Warn when the holiday calendar lacks this year or the next, or has only their statutory holidays (working-day
    deadlines there skip weekends and the listed days only), counting the years organisations loaded. It reads the
    database, so like Django's own database checks it runs when one is named: `manage.py migrate` and
    `manage.py check --database default` (and /readyz shows the same); a plain `check` stays off the database."""
    if not databases or DEFAULT_DB_ALIAS not in databases:
        return []
    today = timezone.localdate()
    try:
        coverage = calendar_coverage(today)
    except DatabaseError:  # not migrated yet: the pack alone
        coverage = pack_coverage(today)
    gaps = [year.describe() for year in coverage if not year.complete]
    if not gaps:
        return []
    return [
        Warning(
            "The holiday calendar is incomplete: " + "; ".join(gaps) + ". Working-day deadlines there may be off by"
            " a few days.",
            hint="load the State Council's notice for the year: manage.py work_calendar load FILE.json (the format"
            " of rules/packs/cn_workdays.json), or the Django admin's work calendar years",
            id="docgate.W012",
        )
    ]


@register(Tags.compatibility)
def docgate_settings_check(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    """Return warnings for a misconfigured LLM, broker, limits or secret."""
    return [*_llm_warnings(), *_broker_warnings(), *_limit_warnings()]


def _llm_warnings() -> list[Warning]:
    warnings: list[Warning] = []
    llm = urlsplit(settings.LLM_BASE_URL)
    if llm.scheme not in {"http", "https"} or not llm.hostname:
        warnings.append(
            Warning(
                f"LLM_BASE_URL {settings.LLM_BASE_URL!r} is not an http(s) URL.",
                hint="e.g. http://vllm:8000/v1",
                id="docgate.W001",
            )
        )
    elif not llm.path.rstrip("/").endswith("/v1"):
        warnings.append(Warning("LLM_BASE_URL should end with /v1 (the OpenAI-compatible prefix).", id="docgate.W002"))
    if settings.LLM_ENGINE not in LLM_ENGINES:
        warnings.append(
            Warning(
                f"LLM_ENGINE {settings.LLM_ENGINE!r} is unknown.",
                hint=f"use one of {', '.join(LLM_ENGINES)}",
                id="docgate.W003",
            )
        )
    if settings.LLM_TIMEOUT_S <= 0:
        warnings.append(Warning("LLM_TIMEOUT_S must be positive.", id="docgate.W004"))
    return warnings


def _broker_warnings() -> list[Warning]:
    warnings: list[Warning] = []
    broker = urlsplit(settings.CELERY_BROKER_URL)
    if broker.scheme not in {"redis", "rediss", "filesystem"}:
        warnings.append(
            Warning(
                f"broker URL scheme {broker.scheme!r} is not supported (REDIS_URL must be redis:// or rediss://).",
                id="docgate.W005",
            )
        )
    if broker.scheme == "filesystem" and settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        warnings.append(
            Warning(
                "PostgreSQL is configured but the broker is the local file queue;"
                " workers on other hosts will not see jobs.",
                hint="set REDIS_URL",
                id="docgate.W006",
            )
        )
    return warnings


def _limit_warnings() -> list[Warning]:
    warnings: list[Warning] = []
    if not 0 < settings.SAFETY_BLOCK_THRESHOLD <= 1:
        warnings.append(Warning("SAFETY_BLOCK_THRESHOLD must be in (0, 1].", id="docgate.W007"))
    for kind, (review, block) in settings.SAFETY_POLICIES.items():
        try:
            kind_policy(cast(Kind, kind), review, block)
        except ValueError:
            warnings.append(
                Warning(
                    f"SAFETY_{kind.upper()}_REVIEW_THRESHOLD/_BLOCK_THRESHOLD ({review}, {block}) must lie in [0, 1]"
                    " with review <= block; the gate refuses them.",
                    id="docgate.W010",
                )
            )
    if settings.DOCGATE_WEBHOOK_TIMEOUT_S <= 0 or settings.DOCGATE_WEBHOOK_CONNECT_TIMEOUT_S <= 0:
        warnings.append(
            Warning("DOCGATE_WEBHOOK_TIMEOUT_S and _CONNECT_TIMEOUT_S must be positive.", id="docgate.W011")
        )
    if settings.DOCGATE_JOB_LEASE_S < 30:
        warnings.append(
            Warning("DOCGATE_JOB_LEASE_S below 30 s lets slow jobs be taken over while running.", id="docgate.W008")
        )
    if len(settings.SECRET_KEY) < 32:
        warnings.append(
            Warning("SECRET_KEY is shorter than 32 characters.", hint="set a long random SECRET_KEY", id="docgate.W009")
        )
    return warnings
