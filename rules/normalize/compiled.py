"""The normalizer's compiled kernels (kernels.c), used when built from the source beside them; else None.

`make install` builds them (rules/normalize/kernels_build.py). The Python code they replace stays the reference:
tests/rules/test_normalize_kernels.py runs both on the same texts. A build of another KERNELS_VERSION or of
another source (an old library after a `git pull`) is refused with a warning, and the Python code runs.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
from pathlib import Path
from types import ModuleType

KERNELS_VERSION = 2
SOURCE = Path(__file__).resolve().parent / "kernels.c"

logger = logging.getLogger(__name__)


def _load() -> ModuleType | None:
    """The built module when kernels_checked accepts it; None when it is not built."""
    try:
        module = importlib.import_module("rules.normalize._kernels")
    except ImportError:
        return None
    return kernels_checked(module)


def kernels_checked(module: ModuleType) -> ModuleType | None:
    """`module` when it is this KERNELS_VERSION and was built from kernels.c as it is now; else None, logged."""
    built_from = getattr(module, "SOURCE_SHA256", None)
    if getattr(module, "KERNELS_VERSION", None) != KERNELS_VERSION or (
        SOURCE.exists() and hashlib.sha256(SOURCE.read_bytes()).hexdigest() != built_from
    ):
        logger.warning(
            "rules.normalize._kernels was built from another kernels.c (version %s, source %s); the normalizer "
            "runs its Python code until `make kernels` rebuilds it",
            getattr(module, "KERNELS_VERSION", None),
            built_from,
        )
        return None
    return module


kernels: ModuleType | None = _load()


def kernels_status() -> str:
    """ "compiled" when the kernels run, "python" when the Python code does (for /readyz and the bench)."""
    return "compiled" if kernels is not None else "python"
