"""docker-compose.yml and settings parsing: the deployment contract holds without Docker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from config.env import database_from_url, envbool, envint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_every_service_of_the_design(compose: dict[str, Any]) -> None:
    assert {"postgres", "redis", "web", "worker", "beat", "vllm", "llm-cpu"} <= set(compose["services"])


def test_app_services_share_the_environment_and_wait_for_healthy_stores(compose: dict[str, Any]) -> None:
    for name in ("web", "worker", "beat"):
        service = compose["services"][name]
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and env["REDIS_URL"].startswith("redis://")
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert service["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "celery" in compose["services"]["worker"]["command"]
    assert "beat" in compose["services"]["beat"]["command"]
    assert "gunicorn" in compose["services"]["web"]["command"]


def test_vllm_serves_gemma_2_9b_with_prefix_caching_on_a_gpu(compose: dict[str, Any]) -> None:
    vllm = compose["services"]["vllm"]
    assert vllm["image"].startswith("vllm/vllm-openai")
    command = vllm["command"]
    assert "google/gemma-2-9b-it" in command
    assert "--enable-prefix-caching" in command
    assert command[command.index("--max-model-len") + 1] == "8192"
    devices = vllm["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["capabilities"] == ["gpu"]
    assert "HF_TOKEN" in vllm["environment"]["HUGGING_FACE_HUB_TOKEN"]
    assert "healthcheck" in vllm


def test_cpu_profile_swaps_vllm_for_the_local_llama_cpp_server(compose: dict[str, Any]) -> None:
    cpu = compose["services"]["llm-cpu"]
    assert cpu["profiles"] == ["cpu"]
    assert "gpu" in compose["services"]["vllm"]["profiles"]
    assert "llama_cpp.server" in " ".join(cpu["command"]) and "--chat_format gemma" in " ".join(cpu["command"])


def test_every_named_volume_is_declared(compose: dict[str, Any]) -> None:
    declared = set(compose["volumes"])
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith((".", "/")):
                assert source in declared


@pytest.mark.parametrize(
    ("url", "engine", "name"),
    [
        ("", "sqlite3", "default.sqlite3"),
        ("sqlite:////tmp/x.sqlite3", "sqlite3", "/tmp/x.sqlite3"),
        ("postgres://u:p%40ss@db.example:6543/docs?sslmode=require", "postgresql", "docs"),
    ],
    ids=["embedded-default", "sqlite-url", "postgres-url"],
)
def test_database_url_parsing(url: str, engine: str, name: str) -> None:
    config = database_from_url(url, default_sqlite=Path("default.sqlite3"))
    assert config["ENGINE"].endswith(engine)
    assert config["NAME"] == name
    if engine == "postgresql":
        assert (config["USER"], config["PASSWORD"], config["PORT"]) == ("u", "p@ss", "6543")
        assert config["OPTIONS"] == {"sslmode": "require"}


def test_unsupported_database_url_is_refused() -> None:
    with pytest.raises(ValueError, match="mysql"):
        database_from_url("mysql://x/y", default_sqlite=Path("d"))


def test_env_helpers_reject_nonsense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DG_FLAG", "maybe")
    with pytest.raises(ValueError, match="DG_FLAG"):
        envbool("DG_FLAG", False)
    monkeypatch.setenv("DG_NUM", "ten")
    with pytest.raises(ValueError, match="DG_NUM"):
        envint("DG_NUM", 1)
    monkeypatch.setenv("DG_FLAG", "yes")
    assert envbool("DG_FLAG", False) is True


def test_system_checks_warn_about_a_misconfigured_llm_and_broker(settings: Any) -> None:
    from contracts.operations.checks import docgate_settings_check

    assert docgate_settings_check() == []
    settings.LLM_BASE_URL = "vllm:8000"
    settings.LLM_ENGINE = "tensorrt"
    settings.CELERY_BROKER_URL = "amqp://guest@localhost//"
    ids = {warning.id for warning in docgate_settings_check()}
    assert {"docgate.W001", "docgate.W003", "docgate.W005"} <= ids


def test_each_queue_by_cost_has_its_own_worker_in_compose_and_runstack(compose: dict[str, Any], settings: Any) -> None:
    """Files to read (`convert`), the model's questions (`llm`) and webhook deliveries (`webhooks`) are routed to
    their own queues; compose and runstack each run one worker per queue, and no worker consumes two."""
    from contracts.management.commands.runstack import Command
    from contracts.operations.processes import ALL_QUEUES

    routes = settings.CELERY_TASK_ROUTES
    assert routes["contracts.tasks.job_convert_task"] == {"queue": "convert"}
    assert routes["contracts.tasks.job_llm_task"] == {"queue": "llm"}
    assert routes["contracts.tasks.webhook_deliver_task"] == {"queue": "webhooks"}
    assert "contracts.tasks.job_run_task" not in routes  # texts: the default queue
    expected = {"worker": "celery", "worker-convert": "convert", "worker-llm": "llm", "worker-webhooks": "webhooks"}
    assert set(expected.values()) == set(ALL_QUEUES) == {"celery", *(route["queue"] for route in routes.values())}
    services = compose["services"]
    in_compose = {name: svc["command"][svc["command"].index("--queues") + 1] for name, svc in services.items()
                  if "--queues" in (svc.get("command") or [])}  # fmt: skip
    assert in_compose == expected
    settings.LLM_ENABLED = False  # no local model server in the command list
    commands = Command()._commands("127.0.0.1:0", 1)
    in_runstack = {name: cmd[cmd.index("--queues") + 1] for name, cmd in commands.items() if "--queues" in cmd}
    assert in_runstack == expected
