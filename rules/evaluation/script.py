"""Script-conversion evaluation: exact match of to_simplified() against OpenCC's own test cases."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rules.normalize import to_simplified

# tw2sp also rewrites Taiwanese vocabulary (滑鼠 → 鼠标); DocGate converts script only: reported apart.
SCORED_CONFIGS = ("t2s", "hk2s", "tw2s")


def evaluate_script(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return n, exact_match (t2s/hk2s/tw2s rows) and per_config; the converter picks its config itself."""
    per_config: dict[str, list[int]] = {}
    for row in rows:
        converted, _ = to_simplified(row["input"])
        tally = per_config.setdefault(row["config"], [0, 0])
        tally[0] += 1
        tally[1] += converted == row["expected"]
    scored_n = sum(per_config[c][0] for c in SCORED_CONFIGS if c in per_config)
    scored_hits = sum(per_config[c][1] for c in SCORED_CONFIGS if c in per_config)
    return {
        "n": scored_n,
        "exact_match": round(scored_hits / scored_n, 4) if scored_n else 0.0,
        "per_config": {
            config: {"n": n, "exact_match": round(hits / n, 4)} for config, (n, hits) in sorted(per_config.items())
        },
    }
