"""Contract clause matching: a versioned rule pack, one Aho-Corasick pass, structure- and context-aware."""

from __future__ import annotations

from rules.clauses.matcher import (
    NEGATED,
    REFERENCED,
    STATUSES,
    STIPULATED,
    ClauseFinding,
    clause_matches,
    clause_presence,
)
from rules.clauses.pack import ClausePack, load_pack
from rules.clauses.risks import RiskFlag, risk_checks

__all__ = [
    "NEGATED",
    "REFERENCED",
    "STATUSES",
    "STIPULATED",
    "ClauseFinding",
    "ClausePack",
    "RiskFlag",
    "clause_matches",
    "clause_presence",
    "load_pack",
    "risk_checks",
]
