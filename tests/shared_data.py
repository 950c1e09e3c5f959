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


# Every kind of licensed training row: comments of both labels and requests of every label.
SAFETY_TRAIN_KINDS = (
    ("cold-train", "safe"),
    ("cold-train", "unsafe"),
    ("xsafety-zh", "unsafe"),
    ("xsafety-zh", "sensitive"),
    ("xsafety-zh", "safe"),
    ("jailbench", "unsafe"),
)


def safety_train_sample(per_kind: int, kinds: tuple[tuple[str, str], ...] = SAFETY_TRAIN_KINDS) -> list[dict]:
    """The first `per_kind` rows of each (source, label) of the safety training corpus, in file order."""
    import json

    with open(shared_file("train/safety.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [row for kind in kinds for row in [r for r in rows if (r["source"], r["label"]) == kind][:per_kind]]
