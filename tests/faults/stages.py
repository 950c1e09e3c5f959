"""Test-only pipeline stages and middleware, appended through `DOCGATE_EXTRA_STAGES` and `MIDDLEWARE` by the fault
tests' settings module."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from contracts.stages.base import JobContext


class PauseStage:
    """Sleep `DOCGATE_FAULT_PAUSE_S` in a job's first run of the phase `DOCGATE_FAULT_PAUSE_PHASE` (rules, or llm:
    the model's questions) only, so a test can break things mid-job; a file named after the job in
    `DOCGATE_FAULT_PAUSE_MARKS` says the pause has begun (a fast run writes its stage timings only with its
    result)."""

    name = "fault_pause"

    def run(self, ctx: JobContext) -> None:
        in_llm_phase = getattr(settings, "DOCGATE_FAULT_PAUSE_PHASE", "rules") == "llm"
        if ctx.ask_model != in_llm_phase:
            return
        marks = getattr(settings, "DOCGATE_FAULT_PAUSE_MARKS", "")
        mark = Path(marks) / str(ctx.job.pk) if marks else None
        if mark.exists() if mark is not None else ctx.attempt != 1:
            return  # paused once already: this is the retry
        if mark is not None:
            mark.parent.mkdir(parents=True, exist_ok=True)
            mark.touch()
        time.sleep(float(getattr(settings, "DOCGATE_FAULT_PAUSE_S", 0.0)))


class HoldResponseMiddleware:
    """Hold one POST's answer after its view ran (what it stored is committed) while the file `DOCGATE_FAULT_HOLD`
    exists: the request that renames it to `<name>.<pid>` sleeps there, so a test can SIGKILL a web worker that is
    surely mid-request and whose client never gets the answer. Without the file every request passes untouched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        hold = getattr(settings, "DOCGATE_FAULT_HOLD", "")
        if hold and request.method == "POST":
            with contextlib.suppress(FileNotFoundError):  # no hold asked for, or another request took it
                Path(hold).rename(f"{hold}.{os.getpid()}")
                time.sleep(60)  # the test kills this worker long before
        return response
