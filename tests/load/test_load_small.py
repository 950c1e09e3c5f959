"""A small load run in every test run, so the load script cannot rot: nothing lost, nothing doubled."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.load.wrk_client import WRK_MISSING, wrk_available
from tests.workers import ROOT

pytestmark = pytest.mark.integration


def _load_run(real_services: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    from django.conf import settings

    database = settings.DATABASES["default"]
    base = f"postgres://{database['USER'] or 'postgres'}@{database['HOST'] or '127.0.0.1'}:{database['PORT'] or 5432}"
    # Its own database (created and dropped by the script) and its own Redis database, apart from the suite's.
    env = {**os.environ, "DATABASE_URL": f"{base}/docgate_loadcheck", "REDIS_URL": real_services["redis_url"]}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "-m", "tests.load.run_load", *args], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=240,
    )  # fmt: skip


def test_sixty_submissions_from_ten_clients_all_finish_once(real_services: dict[str, str]) -> None:
    completed = _load_run(real_services, "--count", "60", "--clients", "10", "--timeout", "120")
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    report = json.loads(completed.stdout)
    assert report["accepted"] == report["final"] == 60
    assert report["lost"] == 0
    assert report["duplicated"] == {"documents_per_sha": 0, "jobs_per_document": 0, "results_per_document": 0}
    assert report["intake_ms"]["p99"] > 0


@pytest.mark.skipif(not wrk_available(), reason=WRK_MISSING)
def test_wrk_run_sends_distinct_bodies_each_stored_once(real_services: dict[str, str]) -> None:
    completed = _load_run(real_services, "--count", "120", "--clients", "10", "--wrk", "1", "--pdf-pages", "2")
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    report = json.loads(completed.stdout)
    assert report["requests"] > 0 and report["non_2xx"] == 0 and report["socket_errors"] == 0
    assert report["requests"] <= report["stored"] <= report["requests"] + 10  # in flight at the stop, at most one each
    assert report["final"] == report["stored"] and report["lost"] == 0  # a worker ran each job
    assert report["duplicated"] == {"documents_per_sha": 0, "jobs_per_document": 0, "results_per_document": 0}
    assert 0 < report["intake_ms"]["p50"] <= report["intake_ms"]["p99"]
