"""Operators: /healthz, /readyz (database, broker, LLM breaker, safety model; how converters are isolated) and /metrics
with pipeline histograms."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.db.utils import OperationalError

from contracts.intake.isolation import ISOLATION_LACKS, Isolation, landlock_lacks
from contracts.intake.submission import Submission, document_submit
from contracts.models import JobState
from contracts.pipeline import job_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def file_broker(settings: Any, tmp_path: Path) -> None:
    """A writable file queue, so readiness depends only on what each test breaks."""
    queue = tmp_path / "queue"
    queue.mkdir()
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(queue), "data_folder_out": str(queue)}


def test_healthz_answers_while_the_process_is_up(client: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_livez_answers_as_healthz_does_without_touching_the_database(client: Any) -> None:
    """Kubernetes' liveness probe (deploy/k8s): a process whose database is down is alive, only unready."""
    broken = mock.Mock()
    broken.ensure_connection.side_effect = OperationalError("connection refused")
    with mock.patch("contracts.operations.health.connection", broken):
        response = client.get("/livez")
    assert response.status_code == 200
    assert response.json() == client.get("/healthz").json() == {"status": "ok"}
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"


def test_readyz_is_ready_with_database_broker_and_llm_disabled(client: Any, file_broker: None) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    checks = response.json()["checks"]
    assert checks["database"]["ok"] and checks["broker"]["ok"]
    assert checks["llm"]["status"] == "disabled"
    assert checks["safety_model"]["ok"] and checks["safety_model"]["detail"].startswith("safety-")


def test_readyz_is_unavailable_while_the_llm_breaker_is_open(client: Any, settings: Any, file_broker: None) -> None:
    from contracts.llm import llm_client

    settings.LLM_ENABLED = True
    settings.LLM_BREAKER_FAILURES = 2
    settings.LLM_BREAKER_COOLDOWN_S = 300.0
    breaker = llm_client().breaker
    for _ in range(settings.LLM_BREAKER_FAILURES):
        breaker.record_failure()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["llm"] == {"ok": False, "status": "open"}
    metrics = client.get("/metrics").content.decode()
    assert "docgate_llm_breaker_open 1.0" in metrics
    breaker.record_success()
    assert client.get("/readyz").status_code == 200


def test_readyz_is_unavailable_when_the_database_is_unreachable(client: Any, file_broker: None) -> None:
    broken = mock.Mock()
    broken.ensure_connection.side_effect = OperationalError("connection refused")
    with mock.patch("contracts.operations.health.connection", broken):
        response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["database"] == {"ok": False, "status": "unreachable", "detail": "OperationalError"}


def test_readyz_is_unavailable_when_the_file_queue_is_missing(client: Any, settings: Any, tmp_path: Path) -> None:
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {"data_folder_in": str(tmp_path / "gone")}
    assert client.get("/readyz").status_code == 503


def test_readyz_says_how_converters_are_isolated_and_what_that_lacks(client: Any, file_broker: None) -> None:
    converters = client.get("/readyz").json()["converters"]
    assert converters["isolation"] in ("bwrap", "landlock", "unshare", "none")
    assert converters["isolation"] != "bwrap" or converters["isolation_lacks"] == []
    assert converters["network_isolation"] is (converters["isolation"] != "none")
    assert converters["isolation_detail"]


WEAKER = {
    "landlock (ABI 4)": (Isolation("landlock", "bwrap: not permitted; Landlock ABI 4", landlock_lacks(4, False)), True),
    "landlock (ABI 2)": (
        Isolation("landlock", "bwrap: not permitted; Landlock ABI 2", landlock_lacks(2, False)),
        False,
    ),
    "unshare": (Isolation("unshare", "bwrap: not permitted", ISOLATION_LACKS["unshare"]), True),
    "none": (Isolation("none", "bwrap: not permitted", ISOLATION_LACKS["none"]), False),
}


@pytest.mark.parametrize(("confinement", "network"), WEAKER.values(), ids=WEAKER.keys())
def test_readyz_names_what_a_weaker_isolation_lacks(
    client: Any, file_broker: None, monkeypatch: pytest.MonkeyPatch, confinement: Isolation, network: bool
) -> None:
    monkeypatch.setattr("contracts.operations.health.isolation", lambda: confinement)
    response = client.get("/readyz")
    assert response.status_code == 200, "a weak isolation is reported, not a reason to be unready"
    converters = response.json()["converters"]
    assert converters["isolation"] == confinement.level and converters["network_isolation"] is network
    lacks = converters["isolation_lacks"]
    assert any(lack.startswith("network isolation") for lack in lacks) is not network
    if confinement.level == "landlock":
        assert any(lack.startswith("process isolation") for lack in lacks)
        assert not any(lack.startswith("file isolation") for lack in lacks)
    else:
        assert any(lack.startswith("file isolation") for lack in lacks)


def test_metrics_expose_stage_histograms_after_a_job_has_run(client: Any, actors: Any) -> None:
    text = "我是A市居民，小区楼下餐馆油烟太大，多次反映至今未解决。"
    job = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text)).job
    assert job_run(job.pk, "metrics-test").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    for stage in ("extract", "normalize", "rules", "llm", "gate", "merge"):
        assert re.search(rf'^docgate_stage_seconds_bucket\{{le="[^"]+",stage="{stage}"\}} [1-9]', body, re.M), stage
    assert 'docgate_stage_seconds_count{stage="rules"}' in body
    assert "docgate_review_queue_depth" in body and "docgate_review_queue_oldest_age_seconds" in body
    assert 'docgate_gate_decisions{decision="allow"}' in body
    assert f'docgate_jobs{{state="{JobState.NEEDS_REVIEW}"}}' in body
    assert "django_http_requests_total_by_method_total" in body  # django-prometheus' own metrics


def test_metrics_require_the_token_when_one_is_configured(client: Any, settings: Any) -> None:
    settings.PROMETHEUS_METRICS_TOKEN = "s3cret-token"
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 200
