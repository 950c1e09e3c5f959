"""The embedded llama.cpp server's command line: the model yields the CPU to the rules and the web."""

from __future__ import annotations

import subprocess
from pathlib import Path

from inference.local_server import server_command


def test_the_local_model_runs_at_the_niceness_it_is_given() -> None:
    command = server_command(Path("model.gguf"), 8088, niceness=10)
    python_at = command.index("-m") - 1
    prefix, python = command[:python_at], command[python_at]
    assert prefix[:3] == ["nice", "-n", "10"]
    # The same prefix really lowers the priority of what it starts.
    probe = subprocess.run([*prefix, python, "-c", "import os; print(os.nice(0))"], capture_output=True, text=True)
    assert int(probe.stdout) >= 10


def test_niceness_zero_starts_the_server_as_it_is() -> None:
    command = server_command(Path("model.gguf"), 8088)
    assert command[1:3] == ["-m", "llama_cpp.server"]
    assert "nice" not in command
