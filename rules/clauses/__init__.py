"""Contract clause matching: a versioned rule pack, one Aho-Corasick pass, structure- and context-aware."""

from __future__ import annotations

from rules.clauses.groups import BLANK, GROUP_STATUSES, PRESENT, ClauseGroup, clause_groups, clause_presence
from rules.clauses.matcher import (
    NEGATED,
    REFERENCED,
    STATUSES,
    STIPULATED,
    ClauseAnalysis,
    ClauseFinding,
    clause_analysis,
    clause_matches,
)
from rules.clauses.pack import ClausePack, load_pack
from rules.clauses.risks import RiskFlag, risk_checks

__all__ = [
    "BLANK",
    "GROUP_STATUSES",
    "NEGATED",
    "PRESENT",
    "REFERENCED",
    "STATUSES",
    "STIPULATED",
    "ClauseAnalysis",
    "ClauseFinding",
    "ClauseGroup",
    "ClausePack",
    "RiskFlag",
    "clause_analysis",
    "clause_groups",
    "clause_matches",
    "clause_presence",
    "load_pack",
    "risk_checks",
]
