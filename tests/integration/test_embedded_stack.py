"""The embedded default stack (`make run`): SQLite, the file queue, gunicorn, a rules worker, a model worker and
beat, no servers."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from inference.local_server import model_dir
from tests.llm_server import llm_server_require
from tests.workers import ROOT, wait_until


def _llm_server_pid(port: int) -> int | None:
    """The pid of the llama.cpp server child serving `port`, found through /proc (Linux)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"llama_cpp.server" in argv and b"--port" in argv and argv[argv.index(b"--port") + 1] == str(port).encode():
            return int(entry.name)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_embedded_stack_processes_a_ticket_without_postgres_or_redis(tmp_path: Path) -> None:
    llm_server_require()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    llm_port = _free_port()
    env.update(
        {
            "DOCGATE_DATA_DIR": str(tmp_path / "var"),
            "PYTHONUNBUFFERED": "1",
            # The stack starts its own llama.cpp server; the model file is shared with the other LLM tests.
            "LLM_BASE_URL": f"http://127.0.0.1:{llm_port}/v1",
            "DOCGATE_LLM_MODEL_DIR": str(model_dir()),
            "LLM_MAX_OUTPUT_TOKENS": "64",
            # Every question asked: the ticket goes through both workers (rules, then the model's questions).
            "LLM_POLICY": "always",
        }
    )

    def manage(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout

    manage("migrate", "--noinput", "-v0")
    printed = manage("bootstrap_demo")
    match = re.search(r"API key:\s+(\S+)", printed)
    assert match, printed
    assert "already exists" in manage("bootstrap_demo")  # secrets are printed once only
    port = _free_port()
    log = tmp_path / "stack.log"
    with open(log, "wb") as out:
        stack = subprocess.Popen(
            [sys.executable, "manage.py", "runstack", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        base = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Api-Key {match.group(1)}"}
        with httpx.Client(base_url=base, headers=headers, timeout=10) as client:

            def up() -> bool:
                try:
                    return client.get("/api/v1/documents/").status_code == 200
                except httpx.TransportError:
                    return False

            assert wait_until(up, timeout_s=60), log.read_text(errors="replace")[-3000:]
            submitted = client.post(
                "/api/v1/documents/", json={"kind": "ticket", "text": "路灯坏了半个月，晚上很危险。"}
            )
            assert submitted.status_code == 201
            document_id = submitted.json()["document"]["id"]

            def finished() -> bool:
                state = client.get(f"/api/v1/documents/{document_id}/").json()["job"]["state"]
                return state in {"done", "needs_review"}

            assert wait_until(finished, timeout_s=120), log.read_text(errors="replace")[-3000:]
            result = client.get(f"/api/v1/documents/{document_id}/result/").json()
            # Version 1 was the rules' provisional result (worker), version 2 the final one (worker-llm).
            assert (result["version"], result["final"]) == (2, True)
            llm = result["provenance"]["llm"]
            assert llm["enabled"] and llm["engine"] == "llamacpp" and "error" not in llm, llm
            assert result["data"]["degraded"] is False

        # The LLM server dies (a crash, the OOM killer): the stack stays up and starts it again.
        first = _llm_server_pid(llm_port)
        assert first is not None
        os.kill(first, signal.SIGKILL)

        def llm_back() -> bool:
            pid = _llm_server_pid(llm_port)
            if pid is None or pid == first:
                return False
            try:
                return httpx.get(f"http://127.0.0.1:{llm_port}/v1/models", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        assert wait_until(llm_back, timeout_s=60), log.read_text(errors="replace")[-3000:]
        assert stack.poll() is None
        assert "llm restarted" in log.read_text(errors="replace")
    finally:
        os.killpg(stack.pid, signal.SIGTERM)
        stack.wait(timeout=30)
    assert (tmp_path / "var" / "docgate.sqlite3").exists()
