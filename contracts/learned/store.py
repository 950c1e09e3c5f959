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


def model_save(organisation_slug: str, name: str, version: str, save: Callable[[Path], Path]) -> Path:
    """Save a model with `save(directory)` as `version` in the organisation's folder, without making it current
    (a retrained version waits there for its verdict; a rejected one stays for inspection)."""
    if not version or "/" in version or version.startswith(".") or version == CURRENT_FILE:
        raise ValueError(f"not a usable model version name: {version!r}")
    return save(model_root(organisation_slug, name) / version)


def model_current_set(organisation_slug: str, name: str, version: str | None) -> None:
    """Make `version` (already saved) the organisation's current one; None: it has none (the rules alone)."""
    root = model_root(organisation_slug, name)
    pointer = root / CURRENT_FILE
    if version is None:
        pointer.unlink(missing_ok=True)
        return
    if not (root / version).is_dir():
        raise FileNotFoundError(f"{root / version}: no such model version")
    temporary = pointer.with_suffix(".tmp")
    temporary.write_text(version, encoding="utf-8")
    temporary.replace(pointer)


def model_publish(organisation_slug: str, name: str, version: str, save: Callable[[Path], Path]) -> Path:
    """Save a model with `save(directory)` as `version` and make it the organisation's current one."""
    directory = model_save(organisation_slug, name, version, save)
    model_current_set(organisation_slug, name, version)
    return directory


def model_current_version(organisation_slug: str, name: str) -> str | None:
    """The name of the organisation's current version of `name`, or None when it has none."""
    directory = model_current_dir(organisation_slug, name)
    return directory.name if directory is not None else None


def model_current_dir(organisation_slug: str, name: str) -> Path | None:
    """The directory of the organisation's current version of `name`, or None when it has none."""
    pointer = model_root(organisation_slug, name) / CURRENT_FILE
    try:
        version = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return pointer.parent / version
