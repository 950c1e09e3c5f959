"""An organisation's active LLM adapter for tests that need the LLM stage to name one (no training: the folder and
the pointer `train_adapter` would leave)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from contracts.learned.adapter_pairs import NAME, adapter_served_name
from contracts.learned.store import model_current_set, model_root

ADAPTER_VERSION = "adapter-20260101T000000"


def adapter_activate(settings: Any, tmp_path: Path, organisation: str = "acme") -> str:
    """Point the models folder into `tmp_path`, make ADAPTER_VERSION the organisation's active adapter, and return
    the name the server serves it under."""
    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    (model_root(organisation, NAME) / ADAPTER_VERSION).mkdir(parents=True)
    model_current_set(organisation, NAME, ADAPTER_VERSION)
    return adapter_served_name(organisation, ADAPTER_VERSION)
