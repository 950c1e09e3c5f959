"""Test-only pipeline stages, appended through `DOCGATE_EXTRA_STAGES` by the fault tests' settings module."""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings

from contracts.stages.base import JobContext


class PauseStage:
    """Sleep `DOCGATE_FAULT_PAUSE_S` on a job's first attempt only, so a test can break things mid-job; a file
    named after the job in `DOCGATE_FAULT_PAUSE_MARKS` says the pause has begun (a fast run writes its stage
    timings only with its result)."""

    name = "fault_pause"

    def run(self, ctx: JobContext) -> None:
        if ctx.attempt != 1:
            return
        marks = getattr(settings, "DOCGATE_FAULT_PAUSE_MARKS", "")
        if marks:
            Path(marks).mkdir(parents=True, exist_ok=True)
            (Path(marks) / str(ctx.job.pk)).touch()
        time.sleep(float(getattr(settings, "DOCGATE_FAULT_PAUSE_S", 0.0)))
