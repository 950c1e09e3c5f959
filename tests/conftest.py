"""Shared fixtures: named actors, API clients, and the real services integration tests need.

Alice submits documents for Acme, Rita reviews for Acme, and Oscar belongs to Globex and must see nothing of Acme's.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import settings as hypothesis_settings

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def program_path(name: str, package: str) -> str:
    """Where a program the tests drive is (installed from Debian's `package` by `make test` when root); skip the
    calling test without it, except with CI=true, where that is a failure."""
    found = shutil.which(name)
    if found is None:
        message = f"{name} is not installed (apt-get install {package}, or run `make test` as root)"
        if IN_CI:
            pytest.fail(f"{message} — with CI=true a missing {name} is a failure", pytrace=False)
        pytest.skip(message)
    return found


# Shared 2-core machines make per-example deadlines flaky; CI runs a fixed, reproducible set of examples.
hypothesis_settings.register_profile("docgate", deadline=None, derandomize=IN_CI, print_blob=True)
hypothesis_settings.load_profile("docgate")


@dataclass
class Actors:
    acme: Any
    globex: Any
    alice: Any
    rita: Any
    oscar: Any
    acme_key: str
    globex_key: str


@pytest.fixture(autouse=True)
def _media_in_tmp(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Keep uploaded originals of each test in its own folder (only for tests that use Django)."""
    if "settings" in request.fixturenames or request.node.get_closest_marker("django_db"):
        settings = request.getfixturevalue("settings")
        settings.MEDIA_ROOT = str(tmp_path / "media")
        # Tests that want the LLM start a real local server and switch it on (the `llm_server` fixture).
        settings.LLM_ENABLED = False
        # Request budgets are off except in the tests about them (tests/api/test_throttling.py).
        settings.DOCGATE_THROTTLE_SUBMIT = None
        settings.DOCGATE_THROTTLE_READ = None
        settings.DOCGATE_THROTTLE_LOGIN = None


@pytest.fixture
def actors(db: Any) -> Actors:
    from django.contrib.auth import get_user_model

    from contracts.models import ApiKey, Membership, Organisation, Role

    users = get_user_model()
    acme = Organisation.objects.create(name="Acme 法务部", slug="acme")
    globex = Organisation.objects.create(name="Globex 热线", slug="globex")
    alice = users.objects.create_user("alice", password="alice-password-1")
    rita = users.objects.create_user("rita", password="rita-password-1")
    oscar = users.objects.create_user("oscar", password="oscar-password-1")
    Membership.objects.create(user=alice, organisation=acme, role=Role.SUBMITTER)
    Membership.objects.create(user=rita, organisation=acme, role=Role.REVIEWER)
    Membership.objects.create(user=oscar, organisation=globex, role=Role.ADMIN)
    _, acme_key = ApiKey.issue(organisation=acme, name="acme integration")
    _, globex_key = ApiKey.issue(organisation=globex, name="globex integration")
    return Actors(acme, globex, alice, rita, oscar, acme_key, globex_key)


METRICS_TOKEN = "test-scrape-token"


@pytest.fixture
def scrape(client: Any, settings: Any) -> Any:
    """GET /metrics as Prometheus does, with its bearer token (without one /metrics is closed by default)."""
    settings.PROMETHEUS_METRICS_TOKEN = METRICS_TOKEN

    def get() -> Any:
        return client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {METRICS_TOKEN}")

    return get


@pytest.fixture
def acme_api(actors: Actors) -> Any:
    """An API client authenticated with Acme's key."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {actors.acme_key}")
    return client


@pytest.fixture
def globex_api(actors: Actors) -> Any:
    """An API client authenticated with Globex's key (the outsider)."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Api-Key {actors.globex_key}")
    return client


def _reachable(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or default_port), timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def real_services() -> dict[str, str]:
    """Require PostgreSQL (as the test database) and Redis (as the broker); skip, or fail when CI=true."""
    from django.conf import settings

    missing = []
    database = settings.DATABASES["default"]
    if not database["ENGINE"].endswith("postgresql"):
        missing.append("PostgreSQL (set DATABASE_URL=postgres://…)")
    if not settings.REDIS_URL or not _reachable(settings.REDIS_URL, 6379):
        missing.append("Redis (set REDIS_URL=redis://…)")
    if missing:
        message = "integration test needs " + " and ".join(missing)
        if IN_CI:
            pytest.fail(message + " — with CI=true a missing service is a failure", pytrace=False)
        pytest.skip(message)
    return {"redis_url": settings.REDIS_URL}


@pytest.fixture
def redis_flushed(real_services: dict[str, str]) -> Iterator[str]:
    """The test Redis database, emptied before and after the test."""
    import redis

    client = redis.Redis.from_url(real_services["redis_url"])
    client.flushdb()
    yield real_services["redis_url"]
    client.flushdb()


@pytest.fixture(scope="session")
def llm_server() -> Iterator[Any]:
    """One real llama.cpp server (Gemma 3 270M) for the whole run; skipped where it is not installed (not in CI)."""
    from tests.llm_server import local_llm_server

    with local_llm_server() as server:
        yield server


@pytest.fixture
def llm_on(settings: Any, llm_server: Any) -> Any:
    """Switch DocGate's LLM stage on against the real local server, with small outputs to keep tests fast."""
    settings.LLM_ENABLED = True
    settings.LLM_POLICY = "always"  # every question, so that each is exercised (the cascade has its own tests)
    settings.LLM_STANDING_FLOOR = 0.0  # ... however the small model answers them (the standing has its own tests)
    settings.LLM_BASE_URL = llm_server.base_url
    settings.LLM_ENGINE = "llamacpp"
    settings.LLM_MODEL = "gemma-3-270m"
    settings.LLM_MAX_OUTPUT_TOKENS = 96
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_S = 180.0  # shared 2-core machines: a slow answer is not an outage
    settings.LLM_BREAKER_FAILURES = 2
    settings.LLM_BREAKER_COOLDOWN_S = 1.0
    return llm_server


@pytest.fixture
def llm_down(settings: Any) -> None:
    """The model switched on, every question asked, and nothing listening where the server should be."""
    from tests.load.run_load import free_port

    settings.LLM_ENABLED = True
    settings.LLM_POLICY = "always"
    settings.LLM_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_S = 5.0
