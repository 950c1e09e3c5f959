"""Test-only pipeline stages, appended through `DOCGATE_EXTRA_STAGES` by the fault tests' settings module."""

from __future__ import annotations

import time

from django.conf import settings

from contracts.stages.base import JobContext


class PauseStage:
    """Sleep `DOCGATE_FAULT_PAUSE_S` on a job's first attempt only, so a test can break things mid-job."""

    name = "fault_pause"

    def run(self, ctx: JobContext) -> None:
        if ctx.attempt == 1:
            time.sleep(float(getattr(settings, "DOCGATE_FAULT_PAUSE_S", 0.0)))
