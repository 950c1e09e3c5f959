"""`manage.py train_adapter`: train an organisation's LoRA adapter of the served model on its reviewed results
(in a subprocess of the training virtualenv: DocGate never imports torch), save it in the organisation's folder,
judge it against the base model on the held-back slice through the real server, and activate it only if better."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import timezone

from contracts.learned.adapter_judge import adapter_slice_judge
from contracts.learned.adapter_pairs import NAME, Pair, adapter_served_name, contract_pairs, pairs_split, ticket_pairs
from contracts.learned.store import model_root, model_save
from contracts.learned.versions import failed_version, model_version_failed, model_version_judge
from contracts.models import LearnedModelVersion, Organisation
from inference.adapters import adapter_load
from inference.client import LLMClient
from inference.errors import LLMError

PAIRS_FILE = "pairs.jsonl"


class AdapterTrainingError(RuntimeError):
    """The training subprocess failed (its stderr's tail is the message)."""


def _project_path(value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else Path(settings.BASE_DIR) / path


def adapter_train_command(pairs: Path, out: Path) -> list[str]:
    """The training subprocess's command line, from the settings."""
    return [
        str(_project_path(settings.DOCGATE_ADAPTER_TRAIN_PYTHON)), "-m", "inference.adapter_train",
        "--pairs", str(pairs), "--base", str(_project_path(settings.DOCGATE_ADAPTER_TRAIN_BASE_MODEL)),
        "--out", str(out), "--rank", str(settings.DOCGATE_ADAPTER_RANK),
        "--alpha", str(settings.DOCGATE_ADAPTER_LORA_ALPHA),
        "--targets", ",".join(settings.DOCGATE_ADAPTER_TARGET_MODULES),
        "--steps", str(settings.DOCGATE_ADAPTER_STEPS),
        "--learning-rate", str(settings.DOCGATE_ADAPTER_LEARNING_RATE),
        "--batch-tokens", str(settings.DOCGATE_ADAPTER_BATCH_TOKENS),
    ]  # fmt: skip


def adapter_train_run(pairs: list[Pair], out: Path) -> dict[str, Any]:
    """Write the pairs into `out` (they stay in the organisation's folder) and train there; return the metrics."""
    out.mkdir(parents=True, exist_ok=True)
    (out / PAIRS_FILE).write_text("".join(pair.jsonl() for pair in pairs), encoding="utf-8")
    try:
        done = subprocess.run(
            adapter_train_command(out / PAIRS_FILE, out),
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=settings.DOCGATE_ADAPTER_TRAIN_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise AdapterTrainingError(f"training did not run to its end: {exc}") from exc
    if done.returncode != 0:
        raise AdapterTrainingError(f"training exited with {done.returncode}: {done.stderr[-1500:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def adapter_server_path(directory: Path) -> str:
    """Where the model server finds an adapter folder (DOCGATE_ADAPTER_SERVER_MODELS_DIR: its view of the volume)."""
    mount = settings.DOCGATE_ADAPTER_SERVER_MODELS_DIR
    if not mount:
        return str(directory.resolve())
    return str(Path(mount) / directory.resolve().relative_to(Path(settings.DOCGATE_MODELS_DIR).resolve()))


def organisation_adapter_train(
    organisation: Organisation, client: LLMClient, *, user: Any = None
) -> LearnedModelVersion:
    """Train, save, load into the server `client` asks, judge on the slice; the version row says what happened and
    why."""
    pairs = [*ticket_pairs(organisation), *contract_pairs(organisation)]
    train, held, split = pairs_split(pairs)
    trained_on = {"pairs": len(train), "tasks": sorted({p.task for p in train}), "slice": split.statement()}
    version = f"adapter-{timezone.now():%Y%m%dT%H%M%S}"
    if not train:
        reason = "no reviewed ticket or contract outside the held-back slice to learn from"
        return model_version_failed(organisation=organisation, name=NAME, version=failed_version(NAME),
                                    reason=reason, trained_on=trained_on, user=user)  # fmt: skip
    holder: dict[str, Any] = {}

    def save(directory: Path) -> Path:
        holder["training"] = adapter_train_run(train, directory)
        return directory

    try:
        directory = model_save(organisation.slug, NAME, version, save)
        served = adapter_served_name(organisation.slug, version)
        if settings.DOCGATE_ADAPTER_LOAD_AT_RUNTIME:
            adapter_load(client, served, adapter_server_path(directory))
        started = time.monotonic()
        verdict, metrics = adapter_slice_judge(client, served, held, split, organisation.slug)
    except (AdapterTrainingError, LLMError) as exc:
        return model_version_failed(organisation=organisation, name=NAME, version=failed_version(NAME),
                                    reason=str(exc)[:2000], trained_on=trained_on, user=user)  # fmt: skip
    metrics.update(training=holder["training"], judge_s=round(time.monotonic() - started, 1), served_name=served)
    return model_version_judge(organisation=organisation, name=NAME, version=version, verdict=verdict,
                               metrics=metrics, trained_on=trained_on, user=user)  # fmt: skip


def adapter_folder(organisation: Organisation) -> Path:
    """The organisation's adapter versions (inside its own model folder)."""
    return model_root(organisation.slug, NAME)
