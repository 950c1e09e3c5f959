"""The compose `monitoring` profile: Prometheus scrapes DocGate's web service, Grafana is provisioned with that
Prometheus and the DocGate dashboard, and every file the services mount exists, read-only."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.promtool import promtool_run

ROOT = Path(__file__).resolve().parents[2]
PROMETHEUS_CONFIG = ROOT / "deploy" / "prometheus" / "prometheus.yml"
GRAFANA = ROOT / "deploy" / "grafana"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def bind_mounts(service: dict[str, Any]) -> dict[str, tuple[Path, str]]:
    """A service's mounts of repository files: container path -> (host path, mode)."""
    mounts = {}
    for volume in service.get("volumes", []):
        source, target, *mode = volume.split(":")
        if source.startswith("."):
            mounts[target] = (ROOT / source, mode[0] if mode else "rw")
    return mounts


def test_prometheus_and_grafana_run_only_in_the_monitoring_profile(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("prometheus", "grafana"):
        assert services[name]["profiles"] == ["monitoring"]
        assert all(port.startswith("127.0.0.1:") for port in services[name]["ports"]), "loopback only"
    unprofiled = {name for name, service in services.items() if "profiles" not in service}
    assert {"prometheus", "grafana"}.isdisjoint(unprofiled)


def test_every_monitoring_mount_is_a_file_in_the_repository_and_read_only(compose: dict[str, Any]) -> None:
    for name in ("prometheus", "grafana"):
        mounts = bind_mounts(compose["services"][name])
        assert mounts, name
        for target, (source, mode) in mounts.items():
            assert source.exists(), f"{name} mounts {source}, which is missing"
            assert mode == "ro", f"{name} mounts {target} writable"
    prometheus = bind_mounts(compose["services"]["prometheus"])
    assert prometheus["/etc/prometheus/prometheus.yml"][0] == PROMETHEUS_CONFIG
    assert "--config.file=/etc/prometheus/prometheus.yml" in " ".join(compose["services"]["prometheus"]["command"])


def test_prometheus_scrapes_the_web_service_where_it_listens(compose: dict[str, Any]) -> None:
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    [job] = [job for job in config["scrape_configs"] if job["job_name"] == "docgate"]
    assert job["metrics_path"] == "/metrics"
    [target] = [target for group in job["static_configs"] for target in group["targets"]]
    host, port = target.split(":")
    web = compose["services"][host]
    assert f"--bind 0.0.0.0:{port}" in web["command"]
    assert host in compose["x-app"]["environment"]["ALLOWED_HOSTS"], "Django would refuse the scrape's Host"
    # The token file the config reads is the one the service writes from PROMETHEUS_METRICS_TOKEN.
    token_file = job["authorization"]["credentials_file"]
    assert f"/etc/prometheus/{token_file}" in " ".join(compose["services"]["prometheus"]["command"])
    assert "PROMETHEUS_METRICS_TOKEN" in compose["x-app"]["environment"]


def test_grafana_is_provisioned_with_prometheus_and_the_dashboard(compose: dict[str, Any]) -> None:
    grafana = compose["services"]["grafana"]
    mounts = bind_mounts(grafana)
    provisioning, _ = mounts["/etc/grafana/provisioning"]
    [datasource] = yaml.safe_load((provisioning / "datasources" / "prometheus.yml").read_text())["datasources"]
    assert datasource["url"] == "http://prometheus:9090" and "prometheus" in compose["services"]
    [provider] = yaml.safe_load((provisioning / "dashboards" / "docgate.yml").read_text())["providers"]
    dashboards, _ = mounts[provider["options"]["path"]]
    dashboard = json.loads((dashboards / "docgate.json").read_text())
    uids = {
        source["uid"]
        for panel in dashboard["panels"]
        for source in [panel.get("datasource"), *(t.get("datasource") for t in panel.get("targets", []))]
        if source
    }
    assert uids == {datasource["uid"]}, "every panel queries the provisioned Prometheus"
    home = grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home == f"{provider['options']['path']}/docgate.json"
    assert len({panel["id"] for panel in dashboard["panels"]}) == len(dashboard["panels"])


def test_promtool_accepts_the_prometheus_config(tmp_path: Path) -> None:
    """As the container sees it: the config beside the token file its service writes at start."""
    shutil.copy(PROMETHEUS_CONFIG, tmp_path / "prometheus.yml")
    (tmp_path / "docgate-metrics-token").write_text("")
    status, output = promtool_run("check", "config", "prometheus.yml", cwd=tmp_path)
    assert status == 0, output
    assert "SUCCESS" in output and "WARNING" not in output.upper(), output
