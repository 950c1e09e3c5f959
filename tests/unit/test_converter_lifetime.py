"""No converter process outlives `run_converter`, however its wait ends (review 26, item 13): the converter here is
a small shell script that starts a sleeping grandchild, as LibreOffice's launcher starts soffice.bin."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from contracts.intake.sandbox import run_converter, workspace


class CallerInterrupted(Exception):
    """What the worker raises while it waits (Celery's soft time limit arrives as an exception like this)."""


def _group(pgid: int) -> list[int]:
    """The processes of process group `pgid` still running (a zombie waiting to be reaped runs no more)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(stat.parent.name))
    return members


def _left_behind(pgid: int, within_s: float = 2.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while (members := _group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return members


@pytest.fixture
def folder() -> Iterator[Path]:
    """The converter's workspace; whatever its process group left running is killed afterwards."""
    with workspace() as path:
        yield path
        marker = path / "group.pid"
        if marker.exists() and _group(pgid := int(marker.read_text())):
            os.killpg(pgid, signal.SIGKILL)


def _converter(folder: Path, *, then: str) -> list[str]:
    """A converter (the leader of its own process group) that records its pid, starts a sleeping grandchild with
    its output detached (so that the converter's end is not held up by it), then does `then`."""
    script = folder / "convert.sh"
    script.write_text(f"#!/bin/sh\necho $$ > {folder / 'group.pid'}\nsleep 60 >/dev/null 2>&1 &\n{then}\n")
    script.chmod(0o755)
    return [str(script)]


def _group_id(folder: Path, within_s: float = 5.0) -> int:
    marker = folder / "group.pid"
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if marker.exists() and (text := marker.read_text().strip()):
            return int(text)
        time.sleep(0.02)
    raise AssertionError("the converter never started")


def test_a_converter_that_ends_leaves_no_grandchild_behind(folder: Path) -> None:
    done = run_converter(_converter(folder, then="echo converted"), folder=folder, timeout_s=30, what="test")
    assert done.returncode == 0 and done.stdout == "converted\n"
    assert _left_behind(_group_id(folder)) == [], "the converter's grandchild outlived it"


@pytest.mark.parametrize("interruption", [CallerInterrupted, KeyboardInterrupt, SystemExit])
def test_an_exception_in_the_waiting_caller_kills_the_converter_and_its_grandchild(
    folder: Path, interruption: type[BaseException]
) -> None:
    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise interruption()

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 1.0)
    try:
        with pytest.raises(interruption):
            run_converter(_converter(folder, then="sleep 60"), folder=folder, timeout_s=30, what="test")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _left_behind(_group_id(folder)) == [], "the converter or its grandchild outlived the caller's exception"
