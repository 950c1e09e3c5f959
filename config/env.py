"""Tiny helpers that read settings from the environment with embedded defaults."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit


def envstr(name: str, default: str = "") -> str:
    """Return the variable's value, or the default when it is unset or blank."""
    value = os.environ.get(name, "").strip()
    return value or default


def envbool(name: str, default: bool) -> bool:
    """Return a boolean from yes/no style values; raise ValueError on anything else."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{name}={value!r} is not a boolean (use true/false)")


def envint(name: str, default: int) -> int:
    """Return an integer setting; raise ValueError naming the variable when it is not one."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise ValueError(f"{name}={value!r} is not an integer") from exc


def envfloat(name: str, default: float) -> float:
    """Return a float setting; raise ValueError naming the variable when it is not one."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return float(value)
    except ValueError as exc:
        raise ValueError(f"{name}={value!r} is not a number") from exc


RATE_PERIODS_S = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}


def envrate(name: str, default: str) -> tuple[int, int] | None:
    """Return a request budget `N/period` (period s, min, hour or day) as (N, seconds); None for off, 0 or none."""
    value = envstr(name, default).lower()
    if value in {"off", "0", "none"}:
        return None
    count, _, period = value.partition("/")
    try:
        budget = (int(count), RATE_PERIODS_S[period.strip()])
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{name}={value!r} is not a rate like 60/min (or off)") from exc
    if budget[0] < 1:
        raise ValueError(f"{name}={value!r}: the count must be at least 1 (or off)")
    return budget


def database_from_url(url: str, *, default_sqlite: Path) -> dict[str, Any]:
    """Turn `DATABASE_URL` (postgres://… or sqlite:///path) into a Django DATABASES entry."""
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(default_sqlite),
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        path = unquote(parts.path[1:] if parts.path.startswith("//") else parts.path) or str(default_sqlite)
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": path,
            "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"},
        }
    if parts.scheme in {"postgres", "postgresql", "pgsql"}:
        options = {key: values[-1] for key, values in parse_qs(parts.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parts.path.lstrip("/")) or "docgate",
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": str(parts.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
    raise ValueError(f"DATABASE_URL scheme {parts.scheme!r} is not supported (use postgres:// or sqlite:///)")


def secret_key_file(path: Path) -> str:
    """Return the secret kept in `path`, creating it (mode 0600) on first use for the embedded setup."""
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key)
    return key
