"""A failed job's trace (the last frames, naming DocGate's code and paths) stays with staff: the API, the portal and
webhooks say the stage, code and message only (review 26, item 7)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from contracts.models import Job, JobState
from contracts.pipeline import job_run
from tests.api.test_intake import URL, upload
from tests.files import pdf_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def failed(acme_api: Any) -> Job:
    """A scan without OCR's help: its job fails in extract, and the database keeps the trace."""
    response = upload(acme_api, "scan.pdf", pdf_bytes(None))
    job = Job.objects.get(document_id=response.json()["document"]["id"])
    job_run(job.pk, "trace-test")
    job.refresh_from_db()
    assert job.state == JobState.FAILED and "extraction.py" in (job.error or {})["trace"]
    return job


def _job_errors(client: Any, job: Job) -> list[dict[str, Any]]:
    """The job's error as each API answer that carries it shows it."""
    document = f"{URL}{job.document_id}/"
    return [
        client.get(f"/api/v1/jobs/{job.pk}/").json()["error"],
        client.get(document).json()["job"]["error"],
        client.get(URL).json()["results"][0]["job"]["error"],
    ]


def test_the_api_shows_a_failed_jobs_code_and_message_but_never_its_trace(acme_api: Any, failed: Job) -> None:
    for error in _job_errors(acme_api, failed):
        assert error == {key: (failed.error or {})[key] for key in ("stage", "code", "type", "message")}


@pytest.mark.parametrize("member", ["alice", "rita"])
def test_members_signed_in_see_no_trace_in_the_api(actors: Any, failed: Job, member: str) -> None:
    client = APIClient()
    client.force_login(getattr(actors, member))
    assert all("trace" not in error for error in _job_errors(client, failed))


def test_the_portal_result_page_shows_the_code_and_not_the_trace(client: Any, actors: Any, failed: Job) -> None:
    client.force_login(actors.rita)
    page = client.get(f"/documents/{failed.document_id}/").content.decode()
    assert "pdf_without_text" in page
    assert "extraction.py" not in page


def test_staff_read_the_trace_in_the_admin(failed: Job) -> None:
    staff = get_user_model().objects.create_superuser("sam", password="sam-password-1")
    admin = APIClient()
    admin.force_login(staff)
    page = admin.get(f"/admin/contracts/job/{failed.pk}/change/").content.decode()
    assert "extraction.py" in page
