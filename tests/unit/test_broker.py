"""The one door to the broker: messages leave after commit, and a broker that refuses them loses nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError

from contracts.broker import JOB_CONVERT, JOB_RUN, backoff_delay_s, task_send
from contracts.intake.submission import Submission, document_submit
from contracts.models import Document, Job, JobState
from contracts.pipeline import jobs_sweep
from contracts.tasks import jobs_sweep_task
from tests.files import docx_bytes

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db


def test_a_job_is_sent_only_after_its_transaction_commits(actors: Any, django_capture_on_commit_callbacks: Any) -> None:
    with mock.patch("contracts.broker.current_app") as app:
        send = app.send_task
        with django_capture_on_commit_callbacks() as callbacks:
            outcome = document_submit(
                organisation=actors.acme, submission=Submission(kind="ticket", source="api", text="小区路灯坏了")
            )
            send.assert_not_called()
        for callback in callbacks:
            callback()
    send.assert_called_once_with(JOB_RUN, args=[str(outcome.job.pk)])


def test_a_file_to_read_goes_to_the_convert_queue_and_a_text_to_the_default_one(
    actors: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Queues by cost: a ticket's text never waits behind a document whose file is still to be parsed or OCRed,
    at intake and when the sweeper sends a stuck job again (once its text is read, it is a text like any other)."""
    with mock.patch("contracts.broker.current_app") as app, django_capture_on_commit_callbacks(execute=True):
        text = document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text="楼道灯坏了一个月")
        )
        upload = document_submit(
            organisation=actors.acme,
            submission=Submission(
                kind="contract", source="api", data=docx_bytes(["第一条 保密义务"]), original_name="a.docx"
            ),
        )
    assert app.send_task.call_args_list == [
        mock.call(JOB_RUN, args=[str(text.job.pk)]),
        mock.call(JOB_CONVERT, args=[str(upload.job.pk)]),
    ]
    routes = settings.CELERY_TASK_ROUTES
    assert routes[JOB_CONVERT] == {"queue": "convert"} and JOB_RUN not in routes
    old = timezone.now() - timedelta(seconds=settings.DOCGATE_JOB_QUEUED_DEADLINE_S + 5)
    Job.objects.filter(pk__in=[text.job.pk, upload.job.pk]).update(queued_at=old)
    with mock.patch("contracts.broker.current_app.send_task") as send:
        jobs_sweep_task()
    assert sorted(send.call_args_list) == sorted(
        [mock.call(JOB_RUN, args=[str(text.job.pk)]), mock.call(JOB_CONVERT, args=[str(upload.job.pk)])]
    )
    Document.objects.filter(pk=upload.document.pk).update(text="第一条 保密义务")  # read by an earlier attempt
    Job.objects.filter(pk=upload.job.pk).update(queued_at=old)
    with mock.patch("contracts.broker.current_app.send_task") as send:
        jobs_sweep_task()
    send.assert_called_once_with(JOB_RUN, args=[str(upload.job.pk)])


def test_a_broker_that_refuses_the_message_leaves_the_job_queued_for_the_sweeper(
    actors: Any, settings: Any, django_capture_on_commit_callbacks: Any, caplog: Any
) -> None:
    refused = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
    with (
        mock.patch("contracts.broker.current_app.send_task", side_effect=refused),
        django_capture_on_commit_callbacks(execute=True),
    ):
        outcome = document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text="噪音扰民")
        )
    job = Job.objects.get(pk=outcome.job.pk)
    assert job.state == JobState.QUEUED, "the submission is kept whatever the broker says"
    assert "the sweeper will send it again" in caplog.text
    Job.objects.filter(pk=job.pk).update(queued_at=job.queued_at.replace(year=2000))
    assert jobs_sweep()[1] == [str(job.pk)]


def test_task_send_answers_whether_the_broker_took_it() -> None:
    with mock.patch("contracts.broker.current_app.send_task") as send:
        assert task_send(JOB_RUN, "abc") is True
    send.assert_called_once_with(JOB_RUN, args=["abc"])
    with mock.patch("contracts.broker.current_app.send_task", side_effect=OperationalError("down")):
        assert task_send(JOB_RUN, "abc") is False


def test_a_process_that_never_imported_the_tasks_sends_them_to_the_real_broker() -> None:
    """The web server imports no Celery task module: sending must work by name there (a fresh process here,
    publishing to the configured broker; the message names a job that does not exist, which a worker ignores)."""
    code = (
        "import django, sys; django.setup(); from contracts.broker import JOB_RUN, task_send; "
        "assert 'contracts.tasks' not in sys.modules; print(task_send(JOB_RUN, '00000000-0000-0000-0000-000000000000'))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "DJANGO_SETTINGS_MODULE":
                            "config.settings"}, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.stdout.strip() == "True", result.stderr[-2000:]


def test_backoff_doubles_within_jitter_and_stops_at_its_cap() -> None:
    for attempt, ceiling in [(0, 2.0), (1, 4.0), (3, 16.0), (10, 60.0)]:
        delays = [backoff_delay_s(attempt, 2.0, 60.0) for _ in range(50)]
        assert all(ceiling / 2 <= delay <= ceiling for delay in delays)
        assert max(delays) - min(delays) > 0, "jittered, so that retries spread out"
