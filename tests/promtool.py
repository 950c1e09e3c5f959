"""Prometheus' own checker (Debian `prometheus`, installed by `make test` when root) for DocGate's exposition
and the monitoring profile's config; tests skip without it, except with CI=true, where that is a failure."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import program_path


def promtool_path() -> str:
    """Where promtool is; skip the calling test without it (fail with CI=true)."""
    return program_path("promtool", "prometheus")


def promtool_run(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> tuple[int, str]:
    """Run promtool with `args`; return its exit status and everything it printed."""
    completed = subprocess.run(
        [promtool_path(), *args], input=stdin, capture_output=True, timeout=60, cwd=cwd, check=False
    )
    return completed.returncode, (completed.stdout + completed.stderr).decode(errors="replace")
