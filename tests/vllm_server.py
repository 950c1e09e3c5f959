"""Start a real vLLM OpenAI server (community CPU build, test-only virtualenv) on Gemma 3 270M for conformance tests.

    with vllm_server() as server:        # a VLLMServer: .base_url, .stop(), .start()
        client = LLMClient(LLMConfig(base_url=server.base_url, engine="vllm"))

`make test-vllm` builds the virtualenv and the Hugging Face model folder first (`tests/vllm/setup.sh`); only the
server runs from that virtualenv, the tests run in the main one. Nothing is downloaded at run time (HF_HUB_OFFLINE).
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from inference.local_server import MODEL_ALIAS, REPO_ROOT
from tests.load.run_load import free_port

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
VLLM_VENV = Path(os.environ.get("DOCGATE_VLLM_VENV") or REPO_ROOT / ".venv-vllm")
VLLM_MODEL_DIR = Path(os.environ.get("DOCGATE_VLLM_MODEL_DIR") or REPO_ROOT / "var" / "vllm-model")
# setup.sh writes these last, so their presence means the step finished (a half-built venv or folder has none).
VENV_MARKER = ".docgate-ready"
MODEL_MARKER = ".docgate-converted"
STARTUP_TIMEOUT_S = 240.0


def vllm_enabled() -> bool:
    """Whether this run is a vLLM conformance run (`make test-vllm` sets DOCGATE_VLLM=1)."""
    return os.environ.get("DOCGATE_VLLM", "").lower() in {"1", "true", "yes"}


def vllm_server_require() -> None:
    """Skip unless DOCGATE_VLLM=1; then fail (never skip) when setup.sh has not built the venv and model."""
    if not vllm_enabled():
        pytest.skip("vLLM conformance runs only under `make test-vllm` (DOCGATE_VLLM=1)")
    missing = [str(path) for path in (VLLM_VENV / VENV_MARKER, VLLM_MODEL_DIR / MODEL_MARKER) if not path.is_file()]
    if missing:
        pytest.fail(f"vLLM test environment not built ({', '.join(missing)} missing): run `bash tests/vllm/setup.sh`")


def vllm_command(model_dir: Path, port: int, *, host: str, max_model_len: int, python: Path) -> list[str]:
    """The vLLM OpenAI server command line (the module entry point: `vllm serve` looks up the wrong dist name)."""
    return [
        str(python), "-m", "vllm.entrypoints.openai.api_server",
        "--model", str(model_dir),
        "--served-model-name", MODEL_ALIAS,
        "--host", host,
        "--port", str(port),
        "--dtype", "bfloat16",
        "--max-model-len", str(max_model_len),
        "--enforce-eager",
        "--enable-prefix-caching",  # as production runs it (compose): questions about one chunk share a prefix
        "--disable-uvicorn-access-log",
    ]  # fmt: skip


def vllm_environment() -> dict[str, str]:
    """The server's environment: offline (no hub downloads), a 2 GiB KV cache, OpenMP threads bound automatically."""
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        VLLM_CPU_KVCACHE_SPACE="2",
        VLLM_CPU_OMP_THREADS_BIND="auto",
        VLLM_NO_USAGE_STATS="1",
        DO_NOT_TRACK="1",
    )
    return env


def vllm_healthy(server_root: str, timeout_s: float = 1.0) -> bool:
    """Whether `GET <server_root>/health` answers 200."""
    try:
        return httpx.get(f"{server_root}/health", timeout=timeout_s).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class VLLMServer:
    """A vLLM server child process on a fixed port that can be stopped and started again (same URL)."""

    model_dir: Path
    log_path: Path
    port: int = 0
    host: str = "127.0.0.1"
    max_model_len: int = 2048
    python: Path = VLLM_VENV / "bin" / "python"
    startup_timeout_s: float = STARTUP_TIMEOUT_S
    extra_args: tuple[str, ...] = ()  # e.g. the LoRA flags (`vllm_lora_args`)
    extra_env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.port:
            self.port = free_port(self.host)

    @property
    def server_root(self) -> str:
        """The URL without `/v1` (`/health`, `/tokenize`, `/metrics` live there)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL (ends in /v1)."""
        return f"{self.server_root}/v1"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the server log (for failure messages)."""
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.is_file() else ""

    def start(self) -> str:
        """Start the server and wait for /health; return the base URL. Raise RuntimeError (with the log) if not."""
        if self.running:
            return self.base_url
        command = vllm_command(
            self.model_dir, self.port, host=self.host, max_model_len=self.max_model_len, python=self.python
        ) + list(self.extra_args)
        started = time.monotonic()
        with open(self.log_path, "ab") as log:
            # Its own session, so stop() can signal the API server and the engine-core process it forks together.
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=vllm_environment() | self.extra_env,
                start_new_session=True,
            )
        while time.monotonic() - started < self.startup_timeout_s:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise RuntimeError(f"vLLM server exited with {code}\n--- server log ---\n{self.log_tail()}")
            if vllm_healthy(self.server_root):
                return self.base_url
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"vLLM not healthy within {self.startup_timeout_s:.0f}s\n--- log ---\n{self.log_tail()}")

    def stop(self, grace_s: float = 20.0) -> None:
        """SIGTERM the server's process group, SIGKILL it after `grace_s`; a no-op when it is not running."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=grace_s)
        # The engine core is a child in the same group: make sure nothing of it outlives the API server.
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)


def vllm_lora_args(adapters: dict[str, Path], *, max_rank: int = 64, max_loras: int = 2) -> tuple[str, ...]:
    """The flags that serve LoRA adapters over the base model (as compose runs it): `name=path` each."""
    modules = [f"{name}={path}" for name, path in adapters.items()]
    lora = ("--enable-lora", "--max-loras", str(max_loras), "--max-lora-rank", str(max_rank))
    return (*lora, "--lora-modules", *modules) if modules else lora


@contextmanager
def vllm_server(
    *, max_model_len: int = 2048, extra_args: tuple[str, ...] = (), extra_env: dict[str, str] | None = None
) -> Iterator[VLLMServer]:
    """A running vLLM server on a free loopback port, stopped afterwards; skips unless DOCGATE_VLLM=1."""
    vllm_server_require()
    with tempfile.TemporaryDirectory(prefix="docgate-vllm-") as log_dir:
        server = VLLMServer(
            VLLM_MODEL_DIR,
            Path(log_dir) / "server.log",
            max_model_len=max_model_len,
            extra_args=extra_args,
            extra_env=extra_env or {},
        )
        server.start()
        try:
            yield server
        finally:
            server.stop()
