"""The last recorded benchmark ratios (baseline.json) and the comparison `make bench` prints after a run.

Each benchmark reports ratios against a baseline measured in the same run, so a ratio travels between machines
far better than a throughput does. A ratio that moved the wrong way by more than MAX_DROP since it was recorded is
a regression: someone made a hot path slower.
"""

from __future__ import annotations

import json
import math
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

BASELINE_FILE = Path(__file__).resolve().parent / "baseline.json"
MAX_DROP = 0.30
HIGHER = "higher"
LOWER = "lower"
# Ratios of DocGate's own cost over a reference (time over time, tokens over tokens, growth per character) are
# better low; every other ratio compares DocGate's speed with a reference's and is better high.
_LOWER_IS_BETTER = ("_over_", "overhead", "per_char_ratio", "ratio_vs_bare_fit")


@dataclass(frozen=True)
class Comparison:
    """One tracked ratio of one benchmark: as recorded, as measured now, and how much worse it got."""

    benchmark: str
    metric: str
    recorded: float
    current: float
    better: str
    drop: float  # share of the recorded performance lost: 0.4 = 40 % worse; negative when it improved

    @property
    def regression(self) -> bool:
        """True when the ratio got worse by more than MAX_DROP."""
        return self.drop > MAX_DROP

    def line(self) -> str:
        """One human-readable line, marked REGRESSION when it is one."""
        verdict = "REGRESSION" if self.regression else "ok"
        change = f"{0.0 - self.drop:+.0%} ({self.better} is better)"
        return f"{verdict:10} {self.benchmark}.{self.metric}: {self.recorded:g} -> {self.current:g}, {change}"


def tracked_ratios(report: Mapping[str, Any]) -> dict[str, float]:
    """The top-level finite numbers of a benchmark's report whose name says they are a ratio."""
    return {
        key: float(value)
        for key, value in report.items()
        if "ratio" in key
        and isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    }


def direction(metric: str) -> str:
    """Whether a ratio is better high or low, from its name (see _LOWER_IS_BETTER)."""
    return LOWER if any(part in metric for part in _LOWER_IS_BETTER) else HIGHER


def _drop(recorded: float, current: float, better: str) -> float:
    performance_then, performance_now = (recorded, current) if better == HIGHER else (1 / recorded, 1 / current)
    return 1 - performance_now / performance_then


def compare(baseline: Mapping[str, Any], reports: Mapping[str, Any]) -> list[Comparison]:
    """Every ratio present both in the baseline and in this run's reports, in benchmark order."""
    comparisons: list[Comparison] = []
    for benchmark, recorded_metrics in baseline.get("ratios", {}).items():
        report = reports.get(benchmark)
        if not isinstance(report, Mapping):
            continue
        current = tracked_ratios(report)
        for metric, entry in recorded_metrics.items():
            if metric not in current:
                continue
            recorded, better = float(entry["value"]), entry["better"]
            drop = _drop(recorded, current[metric], better)
            comparisons.append(Comparison(benchmark, metric, recorded, current[metric], better, round(drop, 4)))
    return comparisons


def regressions(comparisons: list[Comparison]) -> list[Comparison]:
    """The comparisons that lost more than MAX_DROP."""
    return [comparison for comparison in comparisons if comparison.regression]


def recorded(baseline: Mapping[str, Any], reports: Mapping[str, Any], commit: str, when: str) -> dict[str, Any]:
    """A new baseline: the ratios of every benchmark that ran now replace its old ones; the others stay."""
    ratios = {name: dict(metrics) for name, metrics in baseline.get("ratios", {}).items()}
    for benchmark, report in reports.items():
        if not isinstance(report, Mapping) or "error" in report:
            continue
        old = ratios.get(benchmark, {})
        ratios[benchmark] = {
            metric: {
                "value": value,
                "better": old.get(metric, {}).get("better", direction(metric)),
                "commit": commit,
                "recorded": when,
            }
            for metric, value in tracked_ratios(report).items()
        }
    return {"max_drop": MAX_DROP, "ratios": dict(sorted(ratios.items()))}


def load(path: Path | None = None) -> dict[str, Any]:
    """The committed baseline (or the one at `path`), or an empty one."""
    path = path or BASELINE_FILE
    if not path.exists():
        return {"ratios": {}}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def save(baseline: Mapping[str, Any], path: Path | None = None) -> None:
    """Write the baseline as sorted, indented JSON (reviewable diffs)."""
    text = json.dumps(baseline, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    (path or BASELINE_FILE).write_text(text, encoding="utf-8")


def current_commit(root: Path) -> str:
    """The checked-out commit (short), with +dirty when the work tree has changes; "unknown" outside git."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def today() -> str:
    """Today's date in UTC, as the baseline records it."""
    return datetime.now(UTC).date().isoformat()
