"""The pipeline runner: claim a job, run its ordered stages in one of its two phases, end the run in one transition."""

from __future__ import annotations

import time
import traceback
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.utils import timezone
from django.utils.module_loading import import_string

from contracts.models import Job, JobPhase, JobState
from contracts.pipeline.resume import resume_from, rule_outputs_keep, rule_outputs_restore
from contracts.pipeline.transitions import (
    WAITING_STATE,
    JobId,
    JobLost,
    RunOutcome,
    RunStatus,
    TransientError,
    job_fail,
    job_finish,
    job_publish_provisional,
    job_release,
    job_try_claim,
    job_wait,
    lease_kept,
    llm_wait_over,
    progress_write,
)
from contracts.refusals import Refused
from contracts.stages.base import JobContext, LLMWait, Stage
from contracts.stages.extract import ExtractionStage
from contracts.stages.gate import GateStage
from contracts.stages.llm import LLMStage
from contracts.stages.merge import MergeStage
from contracts.stages.normalize import NormalizeStage
from contracts.stages.plan import PlanStage
from contracts.stages.respond import RespondStage
from contracts.stages.rules import RulesStage

# A run writes its stage timings (progress; a check that it still owns the job) after a stage once this long has
# passed since its last write: a write after each of a text job's millisecond stages was a third of its queries.
PROGRESS_WRITE_S = 0.5


def pipeline_stages() -> list[Stage]:
    """Return the ordered stages every job runs, then any `DOCGATE_EXTRA_STAGES` (dotted class paths).

    A job runs them once, unless the plan has questions for the model: then its rules phase runs them without
    asking (the rules' result is published as provisional), and its llm phase, on the `llm` queue, runs normalize
    and the stages after plan over the rules phase's stored outputs, asking them (the final result; `resume`)."""
    extra = [import_string(path)() for path in settings.DOCGATE_EXTRA_STAGES]
    return [
        ExtractionStage(), NormalizeStage(), RulesStage(), GateStage(), PlanStage(), LLMStage(), MergeStage(),
        RespondStage(), *extra,
    ]  # fmt: skip


def _unclaimed_outcome(job: Job, phase: str) -> RunOutcome:
    """Why a job could not be claimed: busy (and for how long), given up (it is failed now), or not waiting."""
    job.refresh_from_db()
    if job.state == JobState.RUNNING and job.lease_expires_at is not None:
        remaining = (job.lease_expires_at - timezone.now()).total_seconds()
        return RunOutcome(RunStatus.BUSY, retry_after_s=max(remaining, 0.0) + 1.0)
    if job.state == WAITING_STATE[JobPhase(phase)] and job.attempts >= settings.DOCGATE_JOB_MAX_ATTEMPTS:
        job_fail(job.pk, None, {"stage": None, "type": "GaveUp", "message": f"gave up after {job.attempts} attempts"})
        return RunOutcome(RunStatus.FAILED)
    return RunOutcome(RunStatus.NOT_CLAIMED)


class _StageClock:
    """A run's stage timings (the job's, from its earlier phase, updated), written as progress at most every
    PROGRESS_WRITE_S, and the stage it is in."""

    def __init__(self, job_id: JobId, attempt: int, timings: dict[str, Any]) -> None:
        self.job_id, self.attempt, self.timings = job_id, attempt, timings
        self.stage_name = "start"
        self.written = time.monotonic()

    def run(self, ctx: JobContext, stages: Sequence[Stage]) -> None:
        """Run `stages` in order, timing each; keep the rule outputs once the plan stage has run."""
        for stage in stages:
            self.stage_name = stage.name
            started = time.perf_counter()
            stage.run(ctx)
            self.timings[stage.name] = {"ms": round((time.perf_counter() - started) * 1000, 3), "attempt": self.attempt}
            rule_outputs_keep(ctx, stage)
            if time.monotonic() - self.written >= PROGRESS_WRITE_S:
                progress_write(self.job_id, self.attempt, self.timings)
                self.written = time.monotonic()


def _stages_run(ctx: JobContext, stages: Sequence[Stage], clock: _StageClock) -> None:
    """Run a phase's stages; the llm phase resumes from the rules phase's stored outputs where it has them."""
    resume = resume_from(stages, ctx.job.artifacts) if ctx.ask_model else None
    if resume is None:  # the rules phase; or an llm phase without stored outputs (queued by an older worker)
        clock.run(ctx, stages)
        return
    clock.run(ctx, resume.rerun)
    clock.stage_name = "resume"
    rule_outputs_restore(ctx, resume.outputs)
    clock.run(ctx, resume.remaining)


def job_run(
    job_id: JobId, worker: str, stages: Sequence[Stage] | None = None, phase: str = JobPhase.RULES
) -> RunOutcome:
    """Run the pipeline for one job in one phase; idempotent: a second delivery of the same job does nothing."""
    job = Job.objects.filter(pk=job_id).select_related("document", "organisation").first()
    if job is None:
        return RunOutcome(RunStatus.MISSING)
    if job.is_final:
        return RunOutcome(RunStatus.ALREADY_FINAL)
    if not job_try_claim(job_id, worker, phase):
        return _unclaimed_outcome(job, phase)
    document, organisation = job.document, job.organisation
    job.refresh_from_db()  # the claim's attempt, start and lease (it forgets the rows loaded with the job)
    job.document, job.organisation = document, organisation
    if document.organisation_id == organisation.pk:
        document.organisation = organisation
    attempt = job.attempts
    ctx = JobContext(job=job, document=document, attempt=attempt, text=document.text)
    ctx.ask_model = phase == JobPhase.LLM
    ctx.may_wait_for_llm = ctx.ask_model and not llm_wait_over(job)
    clock = _StageClock(job_id, attempt, dict(job.stage_timings))
    try:
        with lease_kept(job_id, attempt):
            _stages_run(ctx, stages if stages is not None else pipeline_stages(), clock)
    except JobLost:
        return RunOutcome(RunStatus.LOST)
    except LLMWait as exc:
        return job_wait(job_id, attempt, str(exc), waiting_since=job.llm_waiting_since)
    except (TransientError, OperationalError, InterfaceError) as exc:
        job_release(job_id, attempt, phase, _error_record(exc, clock.stage_name))
        raise TransientError(str(exc)) from exc
    except Exception as exc:
        job_fail(job_id, attempt, _error_record(exc, clock.stage_name), clock.timings)
        return RunOutcome(RunStatus.FAILED)
    if not ctx.ask_model and ctx.plan is not None and ctx.plan.asks_model:
        return RunOutcome(job_publish_provisional(ctx, clock.timings))
    return RunOutcome(job_finish(ctx, clock.timings))


def _error_record(exc: BaseException, stage_name: str) -> dict[str, Any]:
    """What the job's `error` says: the stage, a stable `code` (a refusal's own, else the exception's type), the
    message and the last frames of the trace (kept from API answers and webhooks)."""
    tail = traceback.format_exception(type(exc), exc, exc.__traceback__)[-3:]
    code = exc.code if isinstance(exc, Refused) else type(exc).__name__
    return {
        "stage": stage_name,
        "code": code,
        "type": type(exc).__name__,
        "message": str(exc)[:2000],
        "trace": "".join(tail),
    }
