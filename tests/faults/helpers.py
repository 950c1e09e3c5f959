"""Helpers for fault tests: a worker settings module with a pause stage, beat, process lookup, Redis restarts."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.operations.processes import beat_command
from tests.workers import ROOT, process_group_stop, test_database_url, wait_until

# The command DESIGN.md gives for starting the local Redis.
REDIS_START = [
    "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379", "--save", "",
    "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log",
]  # fmt: skip
FAULT_APP_NAME = "docgate-fault-worker"


def pause_marks(folder: Path) -> Path:
    """Where the pause stage of a worker made by `fault_worker_env(folder)` marks each job whose pause began."""
    return folder / "paused"


def response_hold(folder: Path) -> Path:
    """The file whose presence makes the web of `fault_worker_env(folder)` hold the next POST's answer; the request
    holding renames it to `hold.<pid>` (see `HoldResponseMiddleware`)."""
    return folder / "hold"


def fault_worker_env(
    folder: Path, *, pause_s: float = 0.0, pause_phase: str = "rules", **overrides: str
) -> dict[str, str]:
    """Environment for a worker with short leases and, with `pause_s`, a pause stage after the others in a job's
    first run of `pause_phase` (rules, or llm); a web server run in it holds a POST's answer on demand
    (`response_hold`)."""
    (folder / "fault_settings.py").write_text(
        "from config.settings import *  # noqa: F403\n"
        'DOCGATE_EXTRA_STAGES = ["tests.faults.stages.PauseStage"]\n'
        f"DOCGATE_FAULT_PAUSE_S = {pause_s!r}\n"
        f"DOCGATE_FAULT_PAUSE_PHASE = {pause_phase!r}\n"
        f"DOCGATE_FAULT_PAUSE_MARKS = {str(pause_marks(folder))!r}\n"
        'MIDDLEWARE = [*MIDDLEWARE, "tests.faults.stages.HoldResponseMiddleware"]  # noqa: F405\n'
        f"DOCGATE_FAULT_HOLD = {str(response_hold(folder))!r}\n"
    )
    return {
        "DJANGO_SETTINGS_MODULE": "fault_settings",
        "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}",
        "DOCGATE_JOB_LEASE_S": "6",
        "DOCGATE_JOB_QUEUED_DEADLINE_S": "3",
        "DOCGATE_SWEEP_INTERVAL_S": "2",
        "DOCGATE_RETRY_BACKOFF_S": "1",
        "DOCGATE_WEBHOOK_ALLOW_PRIVATE": "true",
        "PGAPPNAME": FAULT_APP_NAME,  # lets a test find (and drop) exactly the worker's database connections
        **overrides,
    }


def child_pids(parent: int) -> list[int]:
    """Return the ids of the live processes whose parent is `parent` (the prefork pool's children)."""
    children = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent and fields[0] != "Z":
            children.append(int(entry.name))
    return children


@contextmanager
def celery_beat(*, extra_env: dict[str, str], folder: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run `celery beat` (the periodic sweeper's clock) on the test broker; stop it afterwards."""
    from django.conf import settings

    env = {
        **os.environ,
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "DOCGATE_DATA_DIR": str(settings.DATA_DIR),
        **extra_env,
    }
    log = open(folder / "beat.log", "wb")  # noqa: SIM115 (closed below)
    process = subprocess.Popen(
        beat_command(str(folder / "beat-schedule")),
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        yield process
    finally:
        process_group_stop(process, grace_s=15)
        log.close()


@dataclass(frozen=True)
class PrivateRedis:
    """A redis-server of one test's own: its URL and the command that starts it again on the same port."""

    url: str
    start: list[str]


@contextmanager
def redis_private(folder: Path) -> Iterator[PrivateRedis]:
    """Run a redis-server for this test alone on a free loopback port (nothing persisted); shut it down afterwards.

    A test that restarts Redis restarts this one, never the Redis that other test runs share."""
    import pytest
    import redis

    if not shutil.which("redis-server"):
        pytest.skip("needs redis-server")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    start = [
        "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
        "--appendonly", "no", "--dir", str(folder), "--logfile", str(folder / "redis.log"),
    ]  # fmt: skip
    server = PrivateRedis(url=f"redis://127.0.0.1:{port}/0", start=start)
    subprocess.run(start, check=True, capture_output=True)
    client: Any = redis.Redis.from_url(server.url, socket_timeout=5)
    assert wait_until(lambda: _pong(client), timeout_s=15), "the test's Redis did not start"
    try:
        yield server
    finally:
        with contextlib.suppress(redis.RedisError):  # the server closes the connection as it exits
            client.shutdown(nosave=True)


def redis_restart_losing_data(url: str, start: list[str] | None = None) -> None:
    """Shut the local Redis down without saving and start it again (with `start`, by default the machine's Redis
    on 6379 as DESIGN.md starts it); always leaves it answering PONG."""
    import pytest
    import redis

    client: Any = redis.Redis.from_url(url, socket_timeout=5)
    if client.connection_pool.connection_kwargs.get("host") not in {"127.0.0.1", "localhost"} or not shutil.which(
        "redis-server"
    ):
        pytest.skip("restarting Redis needs a local redis-server on 127.0.0.1")
    try:
        with contextlib.suppress(redis.ConnectionError):  # the server closes the connection as it exits
            client.shutdown(nosave=True)
        assert wait_until(lambda: not _pong(client), timeout_s=15), "Redis did not stop"
    finally:
        Path("/var/lib/redis").mkdir(parents=True, exist_ok=True)
        Path("/var/log/redis").mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + 30
        while not _pong(client) and time.monotonic() < deadline:
            subprocess.run(start or REDIS_START, check=False, capture_output=True)
            wait_until(lambda: _pong(client), timeout_s=5)
        assert _pong(client), "Redis did not come back"


def _pong(client: Any) -> bool:
    import redis

    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


def log_tail(path: Path) -> str:
    """The end of a worker log, for assertion messages."""
    return path.read_text(errors="replace")[-4000:] if path.exists() else "(no log)"
