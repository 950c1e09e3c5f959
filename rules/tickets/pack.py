"""The ticket rule pack (`rules/packs/tickets.json`) and its one-pass Aho-Corasick automaton."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rules.normalize.width import fold_text
from rules.term_search import TermIndex
from rules.tickets.taxonomy import GENERIC_NAMES, PACKS_DIR, Taxonomy, load_taxonomy

RULES_PATH = PACKS_DIR / "tickets.json"
# Literal level-3 names of the taxonomy count as evidence too; shorter names ("气象") are too loose.
TAXONOMY_TERM_MIN_CHARS = 3
TAXONOMY_TERM_WEIGHT = 2.0


@dataclass(frozen=True)
class TicketRule:
    """One keyword rule: its terms vote for a level-1 category (and, when set, a level-2/3 path)."""

    id: str
    level1: str
    weight: float
    terms: tuple[str, ...]
    level2: str | None = None
    level3: str | None = None


@dataclass(frozen=True)
class Scoring:
    """Scoring constants of the pack (see the pack's description)."""

    title_chars: int
    title_boost: float
    min_score: float
    strength_scale: float
    level2_min_score: float
    level3_min_score: float


@dataclass(frozen=True)
class TicketRulePack:
    """Rules, scoring constants and the automaton built once from them."""

    version: str
    rules: tuple[TicketRule, ...]
    scoring: Scoring
    automaton: TermIndex[tuple[int, ...]]
    taxonomy: Taxonomy

    @property
    def terms(self) -> tuple[str, ...]:
        """Every distinct term of the pack (the naive baseline of the benchmark loops over these)."""
        return tuple(sorted({term for rule in self.rules for term in rule.terms}))


def taxonomy_rules(taxonomy: Taxonomy, explicit: tuple[TicketRule, ...]) -> tuple[TicketRule, ...]:
    """Rules for literal level-3 names that belong to one level-1 only and no explicit rule already has."""
    owners: dict[str, set[str]] = {}
    for level1, _level2, level3 in taxonomy.paths():
        owners.setdefault(level3, set()).add(level1)
    taken = {(rule.level1, fold_text(term)) for rule in explicit for term in rule.terms}
    rules = []
    seen: set[str] = set()
    for level1, level2, level3 in taxonomy.paths():
        term = fold_text(level3)
        if (
            level3 in GENERIC_NAMES
            or len(level3) < TAXONOMY_TERM_MIN_CHARS
            or len(owners[level3]) > 1
            or (level1, term) in taken
            or term in seen
        ):
            continue
        seen.add(term)
        rules.append(
            TicketRule(
                id=f"TAX:{level1}/{level2}/{level3}",
                level1=level1,
                weight=TAXONOMY_TERM_WEIGHT,
                terms=(term,),
                level2=level2,
                level3=level3,
            )
        )
    return tuple(rules)


def validate_rules(rules: tuple[TicketRule, ...], taxonomy: Taxonomy) -> None:
    """Raise ValueError for duplicate ids, paths outside the taxonomy or a term listed twice for one level-1."""
    duplicates = [rule_id for rule_id, n in Counter(rule.id for rule in rules).items() if n > 1]
    if duplicates:
        raise ValueError(f"duplicate ticket rule ids: {duplicates}")
    seen: set[tuple[str, str]] = set()
    for rule in rules:
        if not taxonomy.has_path(rule.level1, rule.level2, rule.level3):
            raise ValueError(f"{rule.id}: {rule.level1}/{rule.level2}/{rule.level3} is not in the taxonomy")
        if rule.weight <= 0 or not rule.terms:
            raise ValueError(f"{rule.id}: needs a positive weight and at least one term")
        for term in rule.terms:
            if (rule.level1, term) in seen:
                raise ValueError(f"{rule.id}: term {term!r} is already listed for {rule.level1}")
            seen.add((rule.level1, term))


def build_automaton(rules: tuple[TicketRule, ...]) -> TermIndex[tuple[int, ...]]:
    """One automaton over all terms; each term maps to the indices of the rules that list it."""
    by_term: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        for term in rule.terms:
            by_term.setdefault(term, []).append(index)
    return TermIndex((term, tuple(indices)) for term, indices in by_term.items())


def pack_from_dict(data: dict, taxonomy: Taxonomy) -> TicketRulePack:
    """Build the pack from its JSON object; raise ValueError when it is malformed."""
    try:
        explicit = tuple(
            TicketRule(
                id=item["id"],
                level1=item["level1"],
                weight=float(item["weight"]),
                terms=tuple(fold_text(term) for term in item["terms"]),
                level2=item.get("level2"),
                level3=item.get("level3"),
            )
            for item in data["rules"]
        )
        constants = data["scoring"]
        scoring = Scoring(
            title_chars=int(constants["title_chars"]),
            title_boost=float(constants["title_boost"]),
            min_score=float(constants["min_score"]),
            strength_scale=float(constants["strength_scale"]),
            level2_min_score=float(constants["level2_min_score"]),
            level3_min_score=float(constants["level3_min_score"]),
        )
        version = str(data["version"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed ticket rule pack: {exc!r}") from exc
    rules = explicit + taxonomy_rules(taxonomy, explicit)
    validate_rules(rules, taxonomy)
    return TicketRulePack(
        version=version, rules=rules, scoring=scoring, automaton=build_automaton(rules), taxonomy=taxonomy
    )


@lru_cache(maxsize=4)
def load_pack(path: Path = RULES_PATH) -> TicketRulePack:
    """Read, validate and cache the rule pack (the automaton is built once per process)."""
    with open(path, encoding="utf-8") as handle:
        return pack_from_dict(json.load(handle), load_taxonomy())
