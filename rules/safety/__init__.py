"""The deterministic half of the safety gate: lexicon scoring, rules-only decisions, leaks in outgoing text."""

from __future__ import annotations

from rules.safety.decision import (
    DEFAULT_BLOCK_THRESHOLD,
    DEFAULT_REVIEW_THRESHOLD,
    Decision,
    gate_combine,
    gate_decide_rules,
    output_leaks,
    output_links,
)
from rules.safety.pack import CATEGORIES, SafetyPack, load_safety_pack
from rules.safety.scorer import SafetyAssessment, SafetyHit, safety_score

__all__ = [
    "CATEGORIES",
    "DEFAULT_BLOCK_THRESHOLD",
    "DEFAULT_REVIEW_THRESHOLD",
    "Decision",
    "SafetyAssessment",
    "SafetyHit",
    "SafetyPack",
    "gate_combine",
    "gate_decide_rules",
    "load_safety_pack",
    "output_leaks",
    "output_links",
    "safety_score",
]
