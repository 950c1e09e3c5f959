"""The command lines of DocGate's Celery processes, written once for `runstack` and the integration tests."""

from __future__ import annotations

import sys


def worker_command(*, concurrency: int = 1, hostname: str | None = None, standalone: bool = False) -> list[str]:
    """`celery worker` for DocGate's app; `standalone` drops the cluster chatter (gossip, mingle, heartbeat) that
    a single short-lived worker does not need."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO"]
    command += ["--concurrency", str(concurrency)]
    if hostname is not None:
        command += ["--hostname", hostname]
    if standalone:
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return command


def beat_command(schedule_file: str) -> list[str]:
    """`celery beat` for DocGate's app, keeping its schedule state in `schedule_file`."""
    return [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO", "--schedule", schedule_file]
