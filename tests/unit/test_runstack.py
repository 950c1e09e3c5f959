"""`make run`'s supervisor: what it says when the local model server dies, and what it does about it."""

from __future__ import annotations

from io import StringIO
from typing import Any
from unittest import mock

from contracts.management.commands.runstack import Command


def test_a_dead_model_server_is_restarted_and_the_log_says_that_jobs_wait_for_it(settings: Any) -> None:
    """Jobs wait for the model up to DOCGATE_LLM_WAIT_MAX_S and only then go to review; the log says so, not that
    they get rules-only results at once (the policy before jobs waited)."""
    settings.DOCGATE_LLM_WAIT_MAX_S = 900.0
    command = Command(stdout=StringIO(), stderr=StringIO())
    command._stopping = False
    dead = mock.Mock(returncode=1, **{"poll.return_value": 1})
    ticks: list[float] = []
    clock = iter(range(0, 1000, 10))  # ten seconds pass between looks: past the first restart delay (2 s)

    def sleep(seconds: float) -> None:
        ticks.append(seconds)
        command._stopping = len(ticks) >= 3

    with (
        mock.patch("contracts.management.commands.runstack.time.sleep", sleep),
        mock.patch("contracts.management.commands.runstack.time.monotonic", lambda: float(next(clock))),
        mock.patch("contracts.management.commands.runstack.subprocess.Popen") as started,
    ):
        started.return_value = dead
        command._supervise({"llm": dead}, {"llm": ["llama-server"]}, {"DOCGATE_BIND": "127.0.0.1:8000"})
    said = command.stderr.getvalue()
    assert started.call_count >= 1, said
    assert "rules-only" not in said
    assert "wait for the model" in said and "DOCGATE_LLM_WAIT_MAX_S" in said and "900 s" in said, said
    assert "then go to review" in said, said


def test_every_process_runstack_starts_knows_where_the_web_binds(settings: Any) -> None:
    """DOCGATE_BIND reaches gunicorn (and the workers): a loopback bind leaves /metrics open to this machine."""
    settings.LLM_ENABLED = False
    command = Command(stdout=StringIO(), stderr=StringIO())
    with (
        mock.patch("contracts.management.commands.runstack.subprocess.Popen") as started,
        mock.patch.object(Command, "_supervise"),
        mock.patch("contracts.management.commands.runstack._processes_stop"),
    ):
        started.return_value = mock.Mock(returncode=0)
        command.handle(bind="127.0.0.1:8123", web_workers=1)
    assert started.call_count >= 3
    assert {call.kwargs["env"]["DOCGATE_BIND"] for call in started.call_args_list} == {"127.0.0.1:8123"}
