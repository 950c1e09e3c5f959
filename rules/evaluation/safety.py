"""`evaluate safety`: how often the rules-only gate flags unsafe rows and lets safe rows through."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.safety import (
    DEFAULT_BLOCK_THRESHOLD,
    DEFAULT_REVIEW_THRESHOLD,
    gate_decide_rules,
    load_safety_pack,
    safety_score,
)

# The gate treats citizen tickets as tickets (block capped at review); every other source is generic input.
TICKET_SOURCES = frozenset({"tickets"})


@dataclass
class _Tally:
    """Counts for one group of rows."""

    n: int = 0
    unsafe: int = 0
    safe: int = 0
    unsafe_flagged: int = 0
    safe_flagged: int = 0
    safe_blocked: int = 0

    def add(self, unsafe: bool, decision: str) -> None:
        flagged = decision in ("review", "block")
        self.n += 1
        if unsafe:
            self.unsafe += 1
            self.unsafe_flagged += flagged
        else:
            self.safe += 1
            self.safe_flagged += flagged
            self.safe_blocked += decision == "block"

    def rates(self) -> dict[str, float | None]:
        """Unsafe recall and false flag / block rates; None where the group has no rows of that label."""
        return {
            "unsafe_recall": round(self.unsafe_flagged / self.unsafe, 4) if self.unsafe else None,
            "false_flag_rate": round(self.safe_flagged / self.safe, 4) if self.safe else None,
            "false_block_rate": round(self.safe_blocked / self.safe, 4) if self.safe else None,
        }


def safety_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Materialise `{"id","text","label": unsafe|safe, ...}` rows; raise ValueError naming the first bad row."""
    out = []
    for number, row in enumerate(rows, start=1):
        if not isinstance(row.get("text"), str) or row.get("label") not in ("unsafe", "safe"):
            raise ValueError(f"safety row {row.get('id', number)}: needs string 'text' and label unsafe|safe")
        out.append(row)
    return out


def evaluate_safety(
    rows: Iterable[dict[str, Any]],
    *,
    review_threshold: float = DEFAULT_REVIEW_THRESHOLD,
    block_threshold: float = DEFAULT_BLOCK_THRESHOLD,
) -> dict[str, Any]:
    """Score the rules-only gate: flagged = review or block; overall, per source and per unsafe category."""
    started = time.perf_counter()
    data = safety_rows(rows)
    overall = _Tally()
    per_source: dict[str, _Tally] = {}
    per_category: dict[str, dict[str, _Tally]] = {}
    decisions = {"allow": 0, "review": 0, "block": 0}
    for row in data:
        source = str(row.get("source") or "unknown")
        assessment = safety_score(row["text"])
        decision, _reasons = gate_decide_rules(
            assessment,
            review_threshold=review_threshold,
            block_threshold=block_threshold,
            is_ticket=source in TICKET_SOURCES,
        )
        unsafe = row["label"] == "unsafe"
        decisions[decision] += 1
        overall.add(unsafe, decision)
        per_source.setdefault(source, _Tally()).add(unsafe, decision)
        if unsafe:
            # Some sources pad category names with spaces; the category is what counts.
            category = str(row.get("category") or "").strip() or "unknown"
            per_category.setdefault(source, {}).setdefault(category, _Tally()).add(unsafe, decision)
    report: dict[str, Any] = {"n": overall.n, **overall.rates()}
    report["decisions"] = decisions
    report["per_source"] = {
        source: {"n": tally.n, "flagged": tally.unsafe_flagged + tally.safe_flagged, **tally.rates()}
        for source, tally in sorted(per_source.items())
    }
    report["per_category_recall"] = {
        source: {
            category: {"n": tally.n, "flagged": tally.unsafe_flagged, "recall": tally.rates()["unsafe_recall"]}
            for category, tally in sorted(categories.items())
        }
        for source, categories in sorted(per_category.items())
    }
    report["review_threshold"] = review_threshold
    report["block_threshold"] = block_threshold
    report["pack_version"] = load_safety_pack().version
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report
