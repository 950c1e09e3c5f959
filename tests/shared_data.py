"""Where the shared evaluation data lives (beside the clone, or DOCGATE_SHARED_DATA)."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DOCGATE_SHARED_DATA", ROOT.parent / "shared" / "data")).resolve()


def shared_file(relative: str) -> Path:
    """Return the path of a shared data file; raise FileNotFoundError with a clear message."""
    path = SHARED_DATA / relative
    if not path.exists():
        raise FileNotFoundError(f"shared evaluation data not found: {path} (set DOCGATE_SHARED_DATA)")
    return path
