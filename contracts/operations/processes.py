"""The command lines of DocGate's Celery processes, written once for `runstack` and the integration tests."""

from __future__ import annotations

import sys

DEFAULT_QUEUE = "celery"  # the rules of texts, and the periodic tasks (contracts.broker.JOB_RUN)
CONVERT_QUEUE = "convert"  # the rules of documents read from a file: parse, LibreOffice, OCR (JOB_CONVERT)
LLM_QUEUE = "llm"  # a job's model questions (contracts.broker.JOB_LLM)
WEBHOOK_QUEUE = "webhooks"  # webhook deliveries (contracts.broker.WEBHOOK_DELIVER)
ALL_QUEUES = (DEFAULT_QUEUE, CONVERT_QUEUE, LLM_QUEUE, WEBHOOK_QUEUE)


def worker_command(
    *,
    concurrency: int = 1,
    hostname: str | None = None,
    standalone: bool = False,
    queues: tuple[str, ...] = ALL_QUEUES,
) -> list[str]:
    """`celery worker` for DocGate's app, consuming `queues` (all by default: one worker does everything);
    `standalone` drops the cluster chatter (gossip, mingle, heartbeat) that a single short-lived worker does not
    need."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO"]
    command += ["--concurrency", str(concurrency), "--queues", ",".join(queues)]
    if hostname is not None:
        command += ["--hostname", hostname]
    if standalone:
        command += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    return command


def beat_command(schedule_file: str) -> list[str]:
    """`celery beat` for DocGate's app, keeping its schedule state in `schedule_file`."""
    return [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO", "--schedule", schedule_file]
