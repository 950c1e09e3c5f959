"""Request budgets: per API key and per portal user, separate for submissions and reads, counted once for every web
process, answered 429 with Retry-After in DocGate's error body.

Alice submits for Acme in the portal; Acme's and Globex's systems submit with their own keys.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from contracts.models import Document
from tests import workers
from tests.workers import ROOT, process_group_stop, wait_until

DAY_S = 86_400
LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle-test"}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _web_process(env: dict[str, str], log_path: Path) -> Iterator[str]:
    """One gunicorn process (one worker) serving DocGate on a free port; yields its base URL."""
    port = _free_port()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--workers", "1", "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        assert wait_until(up, timeout_s=90), log_path.read_text(errors="replace")[-3000:]
        yield base
    finally:
        process_group_stop(process, grace_s=10)


def _assert_throttled(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    assert 0 < int(response.headers["Retry-After"]) <= DAY_S
    error = response.json()["error"]
    assert error["code"] == "throttled" and error["message"]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_a_key_past_its_budget_is_refused_by_every_web_process_and_other_keys_go_on(
    actors: Any, redis_flushed: str, tmp_path: Path
) -> None:
    from django.conf import settings

    env = {
        **os.environ,
        "DATABASE_URL": workers.test_database_url(),
        "REDIS_URL": redis_flushed,
        "DOCGATE_DATA_DIR": str(settings.DATA_DIR),
        "LLM_ENABLED": "false",
        # A day's window: the count cannot roll over while the test runs.
        "DOCGATE_THROTTLE_SUBMIT": "4/day",
        "DOCGATE_THROTTLE_READ": "3/day",
    }
    with ExitStack() as stack:
        first, second = (stack.enter_context(_web_process(env, tmp_path / f"web{n}.log")) for n in (1, 2))
        acme = {"Authorization": f"Api-Key {actors.acme_key}"}
        globex = {"Authorization": f"Api-Key {actors.globex_key}"}

        def submit(base: str, headers: dict[str, str], n: int) -> httpx.Response:
            body = {"kind": "ticket", "text": f"第{n}号工单：路灯坏了，晚上很危险。"}
            return httpx.post(f"{base}/api/v1/documents/", json=body, headers=headers, timeout=30)

        # Four submissions spread over both processes spend Acme's budget of four; the fifth is refused by each.
        accepted = [submit(base, acme, n).status_code for n, base in enumerate([first, second, first, second])]
        assert accepted == [201, 201, 201, 201]
        _assert_throttled(submit(first, acme, 5))
        _assert_throttled(submit(second, acme, 6))
        assert Document.objects.filter(organisation=actors.acme).count() == 4

        # Reads have their own budget, untouched by the submissions, and shared the same way.
        reads = [httpx.get(f"{base}/api/v1/documents/", headers=acme, timeout=30) for base in (second, first, second)]
        assert [r.status_code for r in reads] == [200, 200, 200]
        assert reads[0].json()["count"] == 4
        _assert_throttled(httpx.get(f"{first}/api/v1/documents/", headers=acme, timeout=30))

        # Another key has budgets of its own.
        assert submit(second, globex, 7).status_code == 201
        assert httpx.get(f"{first}/api/v1/documents/", headers=globex, timeout=30).status_code == 200


@pytest.fixture
def budgets(settings: Any) -> Any:
    """Two submissions a day per caller, counted in this process's memory (the cache is not what is tested)."""
    settings.CACHES = LOCAL_CACHE
    settings.DOCGATE_THROTTLE_SUBMIT = (2, DAY_S)
    settings.DOCGATE_THROTTLE_READ = (100, DAY_S)
    return settings


@pytest.mark.django_db
def test_portal_uploads_and_api_submissions_of_a_user_share_one_budget(
    client: Any, actors: Any, acme_api: Any, budgets: Any
) -> None:
    from rest_framework.test import APIClient

    client.force_login(actors.alice)
    for n in range(2):
        upload = client.post("/submit/upload/", {"file": SimpleUploadedFile(f"{n}.txt", f"第{n}条 合同期限".encode())})
        assert upload.status_code == 201
    refused = client.post("/submit/upload/", {"file": SimpleUploadedFile("3.txt", "第三条 违约责任".encode())})
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= DAY_S
    assert refused.json()["error"]["code"] == "throttled"

    # The ticket form shows the refusal as a form error.
    form = client.post("/submit/", {"title": "路灯", "text": "路灯坏了半个月。", "reference": "T-1"})
    assert form.status_code == 429 and int(form["Retry-After"]) > 0
    assert 'data-testid="form-error"' in form.content.decode()

    # Alice through the API with her session: the same budget, spent.
    session_api = APIClient()
    session_api.force_login(actors.alice)
    api = session_api.post("/api/v1/documents/", {"kind": "ticket", "text": "路灯坏了。"}, format="json")
    assert api.status_code == 429 and api.json()["error"]["code"] == "throttled"
    assert Document.objects.filter(submitted_by=actors.alice).count() == 2

    # Acme's key is another caller with a budget of its own.
    by_key = acme_api.post("/api/v1/documents/", {"kind": "ticket", "text": "路灯坏了。"}, format="json")
    assert by_key.status_code == 201


@pytest.mark.django_db
def test_budgets_switched_off_never_refuse(acme_api: Any, budgets: Any) -> None:
    budgets.DOCGATE_THROTTLE_SUBMIT = None
    for n in range(4):
        response = acme_api.post("/api/v1/documents/", {"kind": "ticket", "text": f"第{n}号 路灯坏了。"}, format="json")
        assert response.status_code == 201


def test_the_embedded_file_cache_counts_a_window_and_says_when_it_ends(settings: Any, tmp_path: Path) -> None:
    from contracts.throttling import SUBMIT, budget_spend

    # The embedded default (no Redis): files every web process on the machine shares.
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(tmp_path)}
    }
    settings.DOCGATE_THROTTLE_SUBMIT = (2, 60)
    start = 1_800_000_030.0  # 30 s into a minute-long window
    assert [budget_spend(scope=SUBMIT, caller="key:1", now=start + s) for s in (0, 1)] == [None, None]
    assert budget_spend(scope=SUBMIT, caller="key:1", now=start + 2) == 28
    assert budget_spend(scope=SUBMIT, caller="key:2", now=start + 2) is None
    assert budget_spend(scope=SUBMIT, caller="key:1", now=start + 30) is None  # the next window
