"""Run the web server, the Celery workers (rules of texts, files to read, model questions, webhook deliveries) and
beat together (the embedded `make run` setup)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand

from contracts.operations.processes import (
    CONVERT_QUEUE,
    DEFAULT_QUEUE,
    LLM_QUEUE,
    WEBHOOK_QUEUE,
    beat_command,
    worker_command,
)
from inference.local_server import model_path_ensure, server_command

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
# The local LLM server is restarted when it dies (with growing delays): jobs meanwhile keep their provisional
# results and wait for it (DOCGATE_LLM_WAIT_MAX_S, then review), so nothing stops. Any other process exiting stops
# the stack.
RESTARTABLE = frozenset({"llm"})


class Command(BaseCommand):
    help = (
        "Start gunicorn, the Celery workers, Celery beat and the local LLM server; restart the LLM server when "
        "it dies, stop everything when another one exits or on Ctrl-C."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--web-workers", type=int, default=2)

    def handle(self, *args: Any, bind: str, web_workers: int, **options: Any) -> None:
        commands = self._commands(bind, web_workers)
        # Every process learns where the web listens: a loopback bind leaves /metrics open to this machine.
        env = {**os.environ, "DOCGATE_BIND": bind}
        processes = {name: subprocess.Popen(cmd, env=env) for name, cmd in commands.items()}
        host = bind.split(":")[0]
        port = bind.rsplit(":", 1)[-1]
        self.stdout.write(
            self.style.SUCCESS(
                f"DocGate is up: portal http://{host}:{port}/  API http://{host}:{port}/api/v1/  "
                f"docs http://{host}:{port}/api/v1/docs/  (Ctrl-C stops everything)"
            )
        )
        self._stopping = False
        signal.signal(signal.SIGINT, self._stop)
        signal.signal(signal.SIGTERM, self._stop)
        try:
            self._supervise(processes, commands, env)
        finally:
            _processes_stop(processes)
        exited = [
            name
            for name, p in processes.items()
            if name not in RESTARTABLE and p.returncode not in (0, -signal.SIGTERM, None)
        ]
        if exited and not self._stopping:
            self.stderr.write(f"stopped because {', '.join(exited)} exited unexpectedly")
            sys.exit(1)

    def _stop(self, signum: int, frame: Any) -> None:
        self._stopping = True

    def _commands(self, bind: str, web_workers: int) -> dict[str, list[str]]:
        """The processes of the stack by name (the local LLM server first when there is one)."""
        settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
        for folder in ("queue", "control"):
            (settings.BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
        web = [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", bind, "--workers", str(web_workers)]
        commands = {
            "web": [*web, "--access-logfile", "-"],
            "worker": worker_command(concurrency=1, hostname="docgate-worker@%h", queues=(DEFAULT_QUEUE,)),
            # Files to read (parse, LibreOffice, OCR: seconds to minutes) have their own: no text waits behind a scan.
            "worker-convert": worker_command(concurrency=1, hostname="docgate-convert@%h", queues=(CONVERT_QUEUE,)),
            # The model's questions have their own worker: no document's rules wait behind another's model calls.
            "worker-llm": worker_command(concurrency=1, hostname="docgate-llm@%h", queues=(LLM_QUEUE,)),
            # Webhook deliveries too: a receiver that takes its time (up to DOCGATE_WEBHOOK_TIMEOUT_S) holds no job.
            "worker-webhooks": worker_command(concurrency=1, hostname="docgate-webhooks@%h", queues=(WEBHOOK_QUEUE,)),
            "beat": beat_command(str(settings.CELERY_BEAT_SCHEDULE_FILENAME)),
        }
        llm = self._local_llm_command()
        return {"llm": llm, **commands} if llm is not None else commands

    def _supervise(
        self, processes: dict[str, subprocess.Popen[bytes]], commands: dict[str, list[str]], env: dict[str, str]
    ) -> None:
        """Until stopped: restart a restartable process that died (with growing delays); return when another died."""
        crashes: dict[str, int] = {}
        restart_at: dict[str, float] = {}
        while not self._stopping:
            time.sleep(0.5)
            dead = [name for name, process in processes.items() if process.poll() is not None]
            if any(name not in RESTARTABLE for name in dead):
                return
            for name in dead:
                if name not in restart_at:
                    crashes[name] = crashes.get(name, 0) + 1
                    delay = min(60.0, 2.0 ** crashes[name])
                    restart_at[name] = time.monotonic() + delay
                    self.stderr.write(
                        f"{name} exited with code {processes[name].returncode}; restarting it in {delay:.0f} s "
                        f"({_waiting_jobs_said()})"
                    )
                elif time.monotonic() >= restart_at[name]:
                    del restart_at[name]
                    processes[name] = subprocess.Popen(commands[name], env=env)
                    self.stderr.write(f"{name} restarted; the jobs waiting for it resume once it has loaded the model")

    def _local_llm_command(self) -> list[str] | None:
        """The llama.cpp server command when LLM_BASE_URL points at this machine (the embedded default)."""
        parts = urlsplit(settings.LLM_BASE_URL)
        if not (settings.LLM_ENABLED and settings.DOCGATE_LOCAL_LLM and parts.hostname in LOOPBACK_HOSTS):
            return None

        self.stdout.write("preparing the local LLM (Gemma 3 270M, llama.cpp) …")
        model = model_path_ensure(Path(settings.DOCGATE_LLM_MODEL_DIR))
        return server_command(
            model,
            parts.port or 80,
            host=parts.hostname or "127.0.0.1",
            n_ctx=settings.LLM_CONTEXT_TOKENS,
            alias=settings.LLM_MODEL,
            niceness=settings.DOCGATE_LOCAL_LLM_NICE,
        )


def _waiting_jobs_said() -> str:
    """What becomes of jobs while the model server is down, as the settings have it."""
    wait_s = float(settings.DOCGATE_LLM_WAIT_MAX_S)
    return (
        "jobs meanwhile keep their provisional results and wait for the model, up to "
        f"DOCGATE_LLM_WAIT_MAX_S = {wait_s:.0f} s, then go to review"
    )


def _processes_stop(processes: dict[str, subprocess.Popen[bytes]]) -> None:
    """SIGTERM every process still running, then kill those still there after 15 s."""
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 15
    for process in processes.values():
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
