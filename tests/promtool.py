"""Prometheus' own checker (Debian `prometheus`, installed by `make test` when root) for DocGate's exposition
and the monitoring profile's config; tests skip without it, except with CI=true, where that is a failure."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import IN_CI


def promtool_path() -> str:
    """Where promtool is; skip the calling test without it (fail with CI=true)."""
    found = shutil.which("promtool")
    if found is None:
        message = "promtool is not installed (apt-get install prometheus, or run `make test` as root)"
        if IN_CI:
            pytest.fail(message + " — with CI=true a missing promtool is a failure", pytrace=False)
        pytest.skip(message)
    return found


def promtool_run(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> tuple[int, str]:
    """Run promtool with `args`; return its exit status and everything it printed."""
    completed = subprocess.run(
        [promtool_path(), *args], input=stdin, capture_output=True, timeout=60, cwd=cwd, check=False
    )
    return completed.returncode, (completed.stdout + completed.stderr).decode(errors="replace")
