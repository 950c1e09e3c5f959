"""Start real Celery worker processes against the test database, for integration tests."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from contracts.operations.processes import worker_command

ROOT = Path(__file__).resolve().parents[1]


def test_database_url() -> str:
    """Return a DATABASE_URL naming the database the test run is using right now."""
    from django.db import connection

    params = connection.settings_dict
    auth = quote(params["USER"] or "")
    if params["PASSWORD"]:
        auth += ":" + quote(params["PASSWORD"])
    host = params["HOST"] or "127.0.0.1"
    port = params["PORT"] or "5432"
    return f"postgres://{auth}@{host}:{port}/{params['NAME']}"


@contextmanager
def celery_worker(
    *, extra_env: dict[str, str] | None = None, log_path: Path | None = None, concurrency: int = 1
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `celery worker` in a child process on the test database and broker; stop it afterwards."""
    from django.conf import settings

    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "DOCGATE_DATA_DIR": str(settings.DATA_DIR),
        "PYTHONUNBUFFERED": "1",
        "LLM_ENABLED": "false",
        **(extra_env or {}),
    }
    log = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        worker_command(concurrency=concurrency, standalone=True),
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        process_group_stop(process, grace_s=20)
        if log_path:
            log.close()  # type: ignore[union-attr]


def process_group_stop(process: subprocess.Popen[bytes], grace_s: float = 20) -> None:
    """SIGTERM a child started with start_new_session and its group; SIGKILL them after `grace_s`."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def wait_until(predicate: Callable[[], bool], *, timeout_s: float, interval_s: float = 0.2) -> bool:
    """Poll `predicate` until it holds or the timeout passes; return whether it held."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval_s)
    return predicate()
