"""Operators: /healthz, /readyz (database, broker, safety model; the model server and breaker beside them; how
converters are isolated) and /metrics with pipeline histograms."""

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
from tests.inference.fake_server import Scripted, scripted_server

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


def test_readyz_says_which_normalizer_code_runs_and_is_ready_either_way(client: Any, file_broker: None) -> None:
    from rules.normalize import compiled

    shown = client.get("/readyz").json()["checks"]["normalizer"]
    assert shown["required"] is False
    assert shown["status"] == ("compiled" if compiled.kernels is not None else "python")
    with mock.patch.object(compiled, "kernels", None):  # not built, or built from another kernels.c
        response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"]["normalizer"] == {
        "ok": False,
        "status": "python",
        "detail": "compiled kernels not built or stale (make kernels)",
        "required": False,
    }


@pytest.fixture
def llm_on(settings: Any) -> Any:
    """The model switched on; each test says where its server is (or that nothing listens there)."""
    from contracts.operations.health import llm_probe_forget

    settings.LLM_ENABLED = True
    llm_probe_forget()
    yield settings
    llm_probe_forget()


def _llm_check(client: Any) -> dict[str, Any]:
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()  # the model never makes the web unready (see health.py)
    assert response.json()["status"] == "ready"
    llm: dict[str, Any] = response.json()["checks"]["llm"]
    return llm


def test_readyz_reports_a_dead_model_server_as_down(client: Any, llm_on: Any, file_broker: None) -> None:
    """Nothing listens where the model should be: `down`, although this process's breaker never saw a failure
    (the web calls no model; its breaker said `closed` while the server was dead)."""
    from tests.load.run_load import free_port

    llm_on.LLM_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"
    llm = _llm_check(client)
    assert llm["status"] == "down" and llm["ok"] is False and llm["required"] is False
    assert llm["breaker"] == "closed" and "ConnectError" in llm["detail"]


@pytest.mark.parametrize(
    ("answer", "status", "detail"),
    [
        (Scripted(503, {"error": {"code": 503, "message": "Loading model"}}), "loading", "HTTP 503"),
        (Scripted(200, {"object": "list", "data": [{"id": "gemma-3-270m"}]}), "up", "gemma-3-270m"),
        (Scripted(200, {"object": "list", "data": [{"id": "other-model"}]}), "down", "not gemma-3-270m"),
        (Scripted(500, {"error": "boom"}), "down", "HTTP 500"),
    ],
    ids=["loading", "up", "wrong-model", "server-error"],
)
def test_readyz_asks_the_model_server_whether_it_is_up(
    client: Any, llm_on: Any, file_broker: None, answer: Scripted, status: str, detail: str
) -> None:
    llm_on.LLM_MODEL = "gemma-3-270m"
    with scripted_server(answer) as server:
        llm_on.LLM_BASE_URL = server.base_url
        llm = _llm_check(client)
    assert [r.path for r in server.requests] == ["/v1/models"]
    assert llm["status"] == status and llm["ok"] is (status == "up") and detail in llm["detail"]


def test_the_model_servers_answer_is_kept_a_few_seconds(client: Any, llm_on: Any, file_broker: None) -> None:
    """Probes from a load balancer every second cost the model server one GET per few seconds, not one each."""
    up = Scripted(200, {"data": [{"id": llm_on.LLM_MODEL}]})
    with scripted_server(up, up) as server:
        llm_on.LLM_BASE_URL = server.base_url
        assert [_llm_check(client)["status"] for _ in range(3)] == ["up"] * 3
    assert len(server.requests) == 1


def test_an_open_breaker_is_shown_beside_the_servers_state(
    client: Any, llm_on: Any, file_broker: None, scrape: Any
) -> None:
    from contracts.llm import llm_client

    llm_on.LLM_BREAKER_FAILURES = 2
    llm_on.LLM_BREAKER_COOLDOWN_S = 300.0
    with scripted_server(Scripted(200, {"data": [{"id": llm_on.LLM_MODEL}]})) as server:
        llm_on.LLM_BASE_URL = server.base_url
        breaker = llm_client().breaker
        for _ in range(llm_on.LLM_BREAKER_FAILURES):
            breaker.record_failure()
        llm = _llm_check(client)
        assert llm["status"] == "up" and llm["breaker"] == "open"
        metrics = scrape().content.decode()
        assert "docgate_llm_breaker_open 1.0" in metrics
        breaker.record_success()


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


def test_metrics_expose_stage_histograms_after_a_job_has_run(scrape: Any, actors: Any) -> None:
    text = "我是A市居民，小区楼下餐馆油烟太大，多次反映至今未解决。"
    job = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text)).job
    assert job_run(job.pk, "metrics-test").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    response = scrape()
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


@pytest.mark.parametrize(
    ("bind", "status"),
    [
        *[("", 403), ("0.0.0.0:8000", 403), ("93.184.216.34:8000", 403)],
        *[("127.0.0.1:8000", 200), ("localhost:8000", 200), ("[::1]:8000", 200), ("10.0.4.2:8000", 200)],
    ],
    ids=["unset", "all-interfaces", "public", "loopback", "localhost", "loopback-v6", "private"],
)
def test_metrics_are_closed_without_a_token_unless_the_web_binds_a_private_address(
    client: Any, settings: Any, bind: str, status: int
) -> None:
    """Closed by default (compose serves 0.0.0.0 behind its proxy); `make run`'s loopback bind, which runstack
    passes on as DOCGATE_BIND, leaves it open to this machine."""
    settings.PROMETHEUS_METRICS_TOKEN = ""
    settings.DOCGATE_BIND = bind
    response = client.get("/metrics")
    assert response.status_code == status
    if status == 403:
        assert "PROMETHEUS_METRICS_TOKEN" in response.content.decode()
