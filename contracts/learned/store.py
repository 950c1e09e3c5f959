"""Where each organisation's trained models live (`DOCGATE_MODELS_DIR/<org>/<name>/<version>/`), and publishing.

A `current` file beside the versions names the one in use; it is replaced atomically, so a worker never reads
a half-written pointer, and older versions stay for rollback.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.conf import settings

CURRENT_FILE = "current"


def model_root(organisation_slug: str, name: str) -> Path:
    """The folder holding an organisation's versions of model `name` (outside the code)."""
    return Path(settings.DOCGATE_MODELS_DIR) / organisation_slug / name


def model_publish(organisation_slug: str, name: str, version: str, save: Callable[[Path], Path]) -> Path:
    """Save a model with `save(directory)` as `version` and make it the organisation's current one."""
    root = model_root(organisation_slug, name)
    directory = save(root / version)
    pointer = root / CURRENT_FILE
    temporary = pointer.with_suffix(".tmp")
    temporary.write_text(version, encoding="utf-8")
    temporary.replace(pointer)
    return directory


def model_current_dir(organisation_slug: str, name: str) -> Path | None:
    """The directory of the organisation's current version of `name`, or None when it has none."""
    pointer = model_root(organisation_slug, name) / CURRENT_FILE
    try:
        version = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return pointer.parent / version
