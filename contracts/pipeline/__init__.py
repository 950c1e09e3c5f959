"""The pipeline: `runner` runs a job's stages in its phases, `transitions` moves the job's row from state to state,
`sweeper` hands stuck jobs back to the broker. What other modules use is re-exported here."""

from __future__ import annotations

from contracts.pipeline.runner import PROGRESS_WRITE_S, job_run, pipeline_stages
from contracts.pipeline.sweeper import SweepReport, jobs_sweep, jobs_to_send
from contracts.pipeline.transitions import JobLost, RunOutcome, RunStatus, TransientError, result_data

__all__ = [
    "PROGRESS_WRITE_S",
    "JobLost",
    "RunOutcome",
    "RunStatus",
    "SweepReport",
    "TransientError",
    "job_run",
    "jobs_sweep",
    "jobs_to_send",
    "pipeline_stages",
    "result_data",
]
