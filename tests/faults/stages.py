"""Test-only pipeline stages, appended through `DOCGATE_EXTRA_STAGES` by the fault tests' settings module."""

from __future__ import annotations

import time
from pathlib import Path

from django.conf import settings

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
