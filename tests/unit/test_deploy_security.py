"""Production security: one switch (DOCGATE_BEHIND_TLS) turns on every HTTPS protection, `manage.py check --deploy`
is clean in the compose configuration, and compose publishes the web server to this host's reverse proxy only."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
TLS_SETTINGS = (
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_REDIRECT_EXEMPT",
)
# What a process needs from this one's environment; everything DocGate reads comes from the test's own `env`.
INHERITED = ("PATH", "HOME", "LANG", "PYTHONPATH", "VIRTUAL_ENV")


def _environment(env: dict[str, str], data_dir: Path) -> dict[str, str]:
    inherited = {name: os.environ[name] for name in INHERITED if name in os.environ}
    return {**inherited, "DJANGO_SETTINGS_MODULE": "config.settings", "DOCGATE_DATA_DIR": str(data_dir), **env}


def settings_under(env: dict[str, str], data_dir: Path) -> dict[str, Any]:
    """The TLS-related settings as DocGate computes them from `env`, in a fresh process."""
    code = (
        "import json; from django.conf import settings; "
        f"print(json.dumps({{name: getattr(settings, name, None) for name in {TLS_SETTINGS!r}}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_environment(env, data_dir),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    values: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return values


def compose_app_environment() -> dict[str, str]:
    """The environment compose gives web, worker and beat, with each `${VAR:-default}` at its default and each
    required `${VAR:?…}` given a value, as an operator must."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    given = {"SECRET_KEY": secrets.token_urlsafe(50)}

    def resolved(value: str) -> str:
        def one(match: re.Match[str]) -> str:
            name, kind, default = match.group(1), match.group(2), match.group(3)
            return given[name] if kind == ":?" else default

        return re.sub(r"\$\{(\w+)(:-|:\?)([^}]*)\}", one, value)

    environment = compose["services"]["web"]["environment"]
    return {name: resolved(str(value)) for name, value in environment.items()}


def test_one_setting_turns_on_every_https_protection(tmp_path: Path) -> None:
    behind = settings_under({"DOCGATE_BEHIND_TLS": "true"}, tmp_path)
    assert behind["SESSION_COOKIE_SECURE"] and behind["CSRF_COOKIE_SECURE"] and behind["SECURE_SSL_REDIRECT"]
    assert behind["SECURE_HSTS_SECONDS"] >= 31_536_000 and behind["SECURE_HSTS_INCLUDE_SUBDOMAINS"]
    assert behind["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    # The embedded default (`make run` on http://127.0.0.1:8000/) stays usable over plain HTTP.
    embedded = settings_under({}, tmp_path)
    assert not (embedded["SESSION_COOKIE_SECURE"] or embedded["CSRF_COOKIE_SECURE"] or embedded["SECURE_SSL_REDIRECT"])
    assert not embedded["SECURE_HSTS_SECONDS"] and embedded["SECURE_PROXY_SSL_HEADER"] is None


@pytest.mark.django_db
def test_behind_tls_plain_http_is_sent_to_https_but_the_probes_answer_where_they_are(
    settings: Any, tmp_path: Path
) -> None:
    """The reverse proxy says `X-Forwarded-Proto: https`; a plain request is redirected, except the probes and the
    scrape, which monitoring sends to the web service directly."""
    from django.test import Client

    for name, value in settings_under({"DOCGATE_BEHIND_TLS": "true"}, tmp_path).items():
        setattr(settings, name, tuple(value) if isinstance(value, list) and name.endswith("HEADER") else value)
    client = Client()  # its handler loads the middleware with the settings above
    plain = client.get("/jobs/")
    assert plain.status_code == 301 and plain["Location"] == "https://testserver/jobs/"
    proxied = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert proxied.status_code == 200
    assert proxied["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert proxied.cookies["csrftoken"]["secure"]
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code in (200, 503)  # answered, not redirected


def test_check_deploy_finds_nothing_in_the_compose_configuration(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=_environment(compose_app_environment(), tmp_path),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues (1 silenced)." in done.stdout, done.stdout + done.stderr


def test_compose_publishes_the_web_server_to_this_hosts_reverse_proxy_only() -> None:
    """Plain HTTP on 0.0.0.0:8000 would bypass the TLS proxy (and let anyone send X-Forwarded-Proto)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert compose["services"]["web"]["ports"] == ["127.0.0.1:8000:8000"]
    assert compose_app_environment()["DOCGATE_BEHIND_TLS"] == "true"
