"""A real Celery worker process consumes jobs from Redis: submit over HTTP, the job ends done, the result reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from contracts.models import Job
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def _job_state(client: httpx.Client, document_id: str) -> str:
    return str(client.get(f"/api/v1/documents/{document_id}/").json()["job"]["state"])


def test_submitted_ticket_is_processed_by_a_real_worker(
    actors: Any, live_server: Any, redis_flushed: str, tmp_path: Path
) -> None:
    headers = {"Authorization": f"Api-Key {actors.acme_key}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client:
        submitted = client.post(
            "/api/v1/documents/",
            json={
                "kind": "ticket",
                "text": "我家楼下的餐馆油烟太大，晚上十一点还在营业，多次反映无人处理。",
                "channel": "phone",
                "region": "A市A3区",
                "reference": "T-2026-0001",
            },
        )
        assert submitted.status_code == 201, submitted.text
        document_id = submitted.json()["document"]["id"]
        assert submitted.json()["document"]["job"]["state"] == "queued"

        with celery_worker(log_path=tmp_path / "worker.log") as worker:
            finished = wait_until(lambda: _job_state(client, document_id) in {"done", "needs_review"}, timeout_s=60)
        assert finished, (tmp_path / "worker.log").read_text(errors="replace")[-3000:]
        # The pool process that ran the job names itself, not the main worker process it was forked from.
        claimed_by = Job.objects.get(document_id=document_id).claimed_by
        assert claimed_by.rsplit(":", 1)[1] != str(worker.pid)

        document = client.get(f"/api/v1/documents/{document_id}/").json()
        assert document["job"]["state"] == "done"
        assert document["job"]["attempts"] == 1
        assert "extract" in document["job"]["stage_timings"]
        result = client.get(f"/api/v1/documents/{document_id}/result/")
        assert result.status_code == 200
        body = result.json()
        assert body["version"] == 1
        assert body["data"]["stats"]["cjk_chars"] > 20
        assert body["provenance"]["stages"][0] == "extract"


def test_job_enqueued_while_no_worker_runs_waits_in_redis_and_completes_later(
    actors: Any, live_server: Any, redis_flushed: str, tmp_path: Path
) -> None:
    import redis

    headers = {"Authorization": f"Api-Key {actors.acme_key}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client:
        ids = []
        for n in range(3):
            response = client.post(
                "/api/v1/documents/", json={"kind": "contract", "text": f"第{n + 1}条 合同期限为一年。"}
            )
            assert response.status_code == 201
            ids.append(response.json()["document"]["id"])
        # The messages sit in Redis's default queue until a worker appears.
        assert redis.Redis.from_url(redis_flushed).llen("celery") == 3
        with celery_worker(log_path=tmp_path / "worker.log"):
            assert wait_until(lambda: all(_job_state(client, i) == "done" for i in ids), timeout_s=60), (
                tmp_path / "worker.log"
            ).read_text(errors="replace")[-3000:]
