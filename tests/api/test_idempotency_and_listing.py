"""Idempotency-Key replay and conflict, duplicate detection, listing with pagination and filters."""

from __future__ import annotations

import os
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from contracts.models import Document, Job, JobState
from tests.files import cjk_pdf_bytes

pytestmark = pytest.mark.django_db

URL = "/api/v1/documents/"


def test_same_idempotency_key_and_body_replays_the_first_answer(acme_api: Any) -> None:
    body = {"kind": "ticket", "text": "公交车司机态度恶劣，要求处理。"}
    first = acme_api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="order-42")
    second = acme_api.post(URL, body, format="json", HTTP_IDEMPOTENCY_KEY="order-42")
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert Document.objects.count() == 1 and Job.objects.count() == 1


def test_same_idempotency_key_with_another_body_is_a_409(acme_api: Any) -> None:
    acme_api.post(URL, {"kind": "ticket", "text": "路灯坏了一个月。"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    response = acme_api.post(
        URL, {"kind": "ticket", "text": "路灯坏了两个月。"}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_conflict"
    assert Document.objects.count() == 1


def test_idempotency_keys_are_per_organisation(acme_api: Any, globex_api: Any) -> None:
    acme_api.post(URL, {"kind": "ticket", "text": "噪音扰民。"}, format="json", HTTP_IDEMPOTENCY_KEY="shared")
    response = globex_api.post(
        URL, {"kind": "ticket", "text": "井盖缺失。"}, format="json", HTTP_IDEMPOTENCY_KEY="shared"
    )
    assert response.status_code == 201


def test_multipart_replay_matches_on_content_not_on_boundary(acme_api: Any) -> None:
    def send() -> Any:
        upload = SimpleUploadedFile("c.txt", "第一条 不可抗力".encode())
        return acme_api.post(
            URL, {"kind": "contract", "file": upload}, format="multipart", HTTP_IDEMPOTENCY_KEY="file-1"
        )

    first, second = send(), send()
    assert second.status_code == first.status_code == 201
    assert second.json()["document"]["id"] == first.json()["document"]["id"]


def test_duplicate_document_answers_with_the_existing_one(acme_api: Any, globex_api: Any) -> None:
    body = {"kind": "contract", "text": "第八条 争议解决：提交北京仲裁委员会仲裁。"}
    first = acme_api.post(URL, body, format="json")
    again = acme_api.post(URL, body, format="json")
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json()["duplicate"] is True
    assert "already" in again.json()["message"]
    assert again.json()["document"]["id"] == first.json()["document"]["id"]
    assert Document.objects.count() == 1 and Job.objects.count() == 1
    # Another organisation sending the same bytes gets its own document.
    assert globex_api.post(URL, body, format="json").status_code == 201


def test_a_duplicate_upload_keeps_one_stored_file(acme_api: Any, settings: Any) -> None:
    # The duplicate is found by the unique index as the row is inserted: the second copy's file must not remain.
    pdf = cjk_pdf_bytes([["第五条 保密：双方对合同内容负有保密义务。"]])
    answers = [
        acme_api.post(URL, {"kind": "contract", "file": SimpleUploadedFile("c.pdf", pdf)}, format="multipart")
        for _ in range(2)
    ]
    assert [answer.status_code for answer in answers] == [201, 200]
    stored = [name for _, _, names in os.walk(settings.MEDIA_ROOT) for name in names]
    assert len(stored) == 1 and Document.objects.count() == 1 and Job.objects.count() == 1


def test_list_is_paginated_and_filtered(acme_api: Any) -> None:
    for n in range(3):
        acme_api.post(URL, {"kind": "ticket", "text": f"第{n}号投诉：噪音扰民。"}, format="json")
    acme_api.post(URL, {"kind": "contract", "text": "第一条 合同期限为三年。"}, format="json")
    Job.objects.filter(document__kind="contract").update(state=JobState.DONE)
    old = Document.objects.filter(kind="ticket").order_by("created_at").first()
    assert old is not None
    Document.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))

    everything = acme_api.get(URL).json()
    assert everything["count"] == 4 and len(everything["results"]) == 4
    assert acme_api.get(URL, {"kind": "ticket"}).json()["count"] == 3
    assert acme_api.get(URL, {"status": "done"}).json()["count"] == 1
    assert acme_api.get(URL, {"status": "queued", "kind": "ticket"}).json()["count"] == 3
    since = (timezone.now() - timedelta(days=1)).isoformat()
    assert acme_api.get(URL, {"created_after": since}).json()["count"] == 3
    assert acme_api.get(URL, {"created_before": since}).json()["count"] == 1
    page = acme_api.get(URL, {"page_size": 2, "page": 1}).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]


def _list(django_assert_max_num_queries: Any, acme_api: Any, page_size: int) -> tuple[int, list[dict[str, Any]]]:
    with django_assert_max_num_queries(1000) as captured:
        rows = acme_api.get(URL, {"page_size": page_size}).json()["results"]
    return len(captured.captured_queries), rows


def test_listing_costs_the_same_queries_for_5_or_50_documents(
    acme_api: Any, django_assert_max_num_queries: Any
) -> None:
    """No query per row: each document's job and latest result version come with the page."""
    from contracts.models import Result

    for n in range(50):
        acme_api.post(URL, {"kind": "ticket", "text": f"第{n}号投诉：夜间施工噪音扰民。"}, format="json")
    done = Job.objects.order_by("-created_at")[:3]
    for version, job in enumerate(done, start=1):
        for v in range(1, version + 1):
            Result.objects.create(organisation=job.organisation, document=job.document, job=job, version=v)
    small, first_rows = _list(django_assert_max_num_queries, acme_api, 5)
    large, rows = _list(django_assert_max_num_queries, acme_api, 50)
    assert large == small, (small, large)
    assert len(first_rows) == 5 and len(rows) == 50
    versions = {row["id"]: row["result_version"] for row in rows}
    assert sorted(v for v in versions.values() if v is not None) == [1, 2, 3]
    assert all(row["job"]["state"] == "queued" and row["job"]["id"] for row in rows)
    assert {str(job.document_id): n for n, job in enumerate(done, start=1)}.items() <= versions.items()


def test_a_submission_answers_without_asking_again_for_what_it_made(
    acme_api: Any, django_assert_max_num_queries: Any
) -> None:
    with django_assert_max_num_queries(1000) as captured:
        created = acme_api.post(URL, {"kind": "ticket", "text": "小区路灯坏了一个月。"}, format="json")
    assert created.status_code == 201
    body = created.json()["document"]
    assert body["job"]["state"] == "queued" and body["result_version"] is None
    reads = [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
    assert not [sql for sql in reads if '"contracts_result"' in sql], reads
    assert len([sql for sql in reads if 'FROM "contracts_job"' in sql]) == 0, reads


def test_bad_filter_is_a_400(acme_api: Any) -> None:
    response = acme_api.get(URL, {"status": "exploded"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_result_before_processing_says_not_ready(acme_api: Any) -> None:
    document_id = acme_api.post(URL, {"kind": "ticket", "text": "停水三天。"}, format="json").json()["document"]["id"]
    response = acme_api.get(f"{URL}{document_id}/result/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "result_not_ready"
    assert response.json()["error"]["job_state"] == "queued"


def test_openapi_schema_and_docs_are_served(client: Any) -> None:
    schema = client.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    assert "/api/v1/documents/" in schema.json()["paths"]
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_with_one_key_and_different_bodies_make_one_document_and_one_409(
    actors: Any,
) -> None:
    """Both requests get past the first lookup before either has stored its key (the key table is held locked
    until both wait on it): one is answered 201, the other a JSON 409, and only one document exists."""
    import threading

    from django.db import connection
    from rest_framework.test import APIClient

    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    answers: list[Any] = []

    def send(text: str) -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {actors.acme_key}")
        try:
            answers.append(client.post(URL, {"kind": "ticket", "text": text}, format="json", HTTP_IDEMPOTENCY_KEY="k"))
        finally:
            from django.db import connection as thread_connection

            thread_connection.close()

    import psycopg

    settings_dict = connection.settings_dict
    dsn = f"host={settings_dict['HOST'] or '127.0.0.1'} port={settings_dict['PORT'] or 5432} "
    dsn += f"dbname={settings_dict['NAME']} user={settings_dict['USER']}"
    with psycopg.connect(dsn) as holder:
        holder.execute("LOCK TABLE contracts_idempotencyrecord IN EXCLUSIVE MODE")  # reads pass, inserts wait
        threads = [threading.Thread(target=send, args=(text,)) for text in ("路灯坏了。", "井盖丢了。")]
        for thread in threads:
            thread.start()
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = %s"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with psycopg.connect(dsn, autocommit=True) as probe:
                if probe.execute(waiting, (settings_dict["NAME"],)).fetchone()[0] >= 2:  # type: ignore[index]
                    break
            time.sleep(0.1)
        holder.commit()  # both requests now race for the key
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(a.status_code for a in answers) == [201, 409], [a.content for a in answers]
    conflict = next(a for a in answers if a.status_code == 409)
    assert conflict.json()["error"]["code"] == "idempotency_conflict"
    assert Document.objects.count() == 1 and Job.objects.count() == 1


def _beat_runs(task_name: str) -> Any:
    """Run the task beat schedules under `task_name`, as beat would (fails when beat does not schedule it)."""
    from celery import current_app
    from django.conf import settings

    import contracts.tasks  # noqa: F401 (registers DocGate's tasks with the app)

    scheduled = {str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert task_name in scheduled, f"beat does not run {task_name}: {sorted(scheduled)}"
    return current_app.tasks[task_name].apply().get()


def test_an_idempotency_key_expires_after_a_day_and_beat_deletes_its_record(acme_api: Any, settings: Any) -> None:
    """A key is remembered DOCGATE_IDEMPOTENCY_TTL_S (a day); then beat's cleanup forgets it, and the same key
    with another body is a new submission, not a 409. Younger keys still replay."""
    from contracts.models import IdempotencyRecord

    assert settings.DOCGATE_IDEMPOTENCY_TTL_S == 86_400
    acme_api.post(URL, {"kind": "ticket", "text": "路灯坏了一个月。"}, format="json", HTTP_IDEMPOTENCY_KEY="old")
    acme_api.post(URL, {"kind": "ticket", "text": "井盖缺失。"}, format="json", HTTP_IDEMPOTENCY_KEY="young")
    IdempotencyRecord.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=24, minutes=1))
    IdempotencyRecord.objects.filter(key="young").update(created_at=timezone.now() - timedelta(hours=23))

    assert _beat_runs("contracts.tasks.idempotency_records_expire_task") == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["young"]
    again = acme_api.post(
        URL, {"kind": "ticket", "text": "路灯坏了两个月。"}, format="json", HTTP_IDEMPOTENCY_KEY="old"
    )
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
    conflict = acme_api.post(URL, {"kind": "ticket", "text": "井盖又缺。"}, format="json", HTTP_IDEMPOTENCY_KEY="young")
    assert conflict.status_code == 409
