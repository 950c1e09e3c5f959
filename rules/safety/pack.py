"""The safety rule pack (`rules/packs/safety*.json`): rules, context cues and one automaton built from both."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import ahocorasick

from rules.tickets.pack import fold_text

PACKS_DIR = Path(__file__).resolve().parents[1] / "packs"
SAFETY_PATH = PACKS_DIR / "safety.json"

CATEGORIES = (
    "违法犯罪",
    "侵犯权益",
    "歧视偏见",
    "violence_threat",
    "self_harm",
    "sexual",
    "pii_leak",
    "abuse",
    "prompt_injection",
)
# Cues that raise a rule's weight when they share its sentence, and cues that lower it (see the description).
RAISING_CUES = ("intent", "stealth", "solicit", "coercion", "derogation")
LOWERING_CUES = ("report", "protect", "question", "victim")
CUE_NAMES = RAISING_CUES + LOWERING_CUES
EXCLUSION = "exclusion"


@dataclass(frozen=True)
class SafetyRule:
    """One rule: its terms score `weight` alone, or the best `boosts` weight of a cue in the same sentence."""

    id: str
    category: str
    weight: float
    boosts: tuple[tuple[str, float], ...]
    mitigated_by: tuple[str, ...]
    terms: tuple[str, ...]
    patterns: tuple[str, ...]


@dataclass(frozen=True)
class Scoring:
    """Scoring constants of the pack (see the pack's description)."""

    mitigation_factor: float
    prefix_window: int
    boost_before: int
    boost_after: int
    category_caps: tuple[tuple[str, float], ...]
    sentence_breaks: re.Pattern[str]
    negation: re.Pattern[str]
    passive: re.Pattern[str]
    pseudo_negation: re.Pattern[str]
    victim_after: re.Pattern[str]


@dataclass(frozen=True)
class SafetyPack:
    """Rules, cues, scoring constants and the matchers built once from them."""

    version: str
    rules: tuple[SafetyRule, ...]
    scoring: Scoring
    automaton: ahocorasick.Automaton
    # (rule index or -1, cue name or "", compiled pattern): the few rules and cues that need a regex.
    patterns: tuple[tuple[int, str, re.Pattern[str]], ...]

    @property
    def terms(self) -> tuple[str, ...]:
        """Every distinct literal term of the pack, rules and cues (the benchmark's naive baseline loops over these)."""
        words: set[str] = set()
        for _key, value in self.automaton.items():
            words.add(value[0])
        return tuple(sorted(words))


def _alternation(words: list[str]) -> re.Pattern[str]:
    """One regex that matches any of `words`, longest first; an empty list matches nothing."""
    if not words:
        return re.compile(r"(?!x)x")
    return re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))


def _rule_from_dict(item: dict) -> SafetyRule:
    """Build one rule; raise ValueError when its category, cues or weights are wrong."""
    rule = SafetyRule(
        id=str(item["id"]),
        category=str(item["category"]),
        weight=float(item.get("weight", 0.0)),
        boosts=tuple((str(cue), float(weight)) for cue, weight in item.get("boosts", {}).items()),
        mitigated_by=tuple(item.get("mitigated_by", ("report", "protect", "victim"))),
        terms=tuple(fold_text(term) for term in item.get("terms", ())),
        patterns=tuple(item.get("patterns", ())),
    )
    if rule.category not in CATEGORIES:
        raise ValueError(f"{rule.id}: unknown category {rule.category!r}")
    if not rule.terms and not rule.patterns:
        raise ValueError(f"{rule.id}: needs terms or patterns")
    weights = [rule.weight, *(weight for _cue, weight in rule.boosts)]
    if any(not 0.0 <= weight < 1.0 for weight in weights) or max(weights) == 0.0:
        raise ValueError(f"{rule.id}: weights must lie in [0, 1) and one must be positive")
    for cue in (*(cue for cue, _weight in rule.boosts), *rule.mitigated_by):
        if cue not in CUE_NAMES:
            raise ValueError(f"{rule.id}: unknown cue {cue!r}")
    return rule


def _build_matchers(
    rules: tuple[SafetyRule, ...], cues: dict[str, dict], exclusions: list[str]
) -> tuple[ahocorasick.Automaton, tuple[tuple[int, str, re.Pattern[str]], ...]]:
    """One automaton over rule, cue and exclusion terms: term -> (term, rule indices, cue names); regexes aside.

    An exclusion is a longer everyday word that contains a rule term ("人畜" holds "畜生"'s 畜): it is stored
    as the cue name EXCLUSION, and a rule hit inside it is dropped.
    """
    rule_terms: dict[str, list[int]] = {}
    cue_terms: dict[str, list[str]] = {}
    patterns: list[tuple[int, str, re.Pattern[str]]] = []
    for index, rule in enumerate(rules):
        for term in rule.terms:
            rule_terms.setdefault(term, []).append(index)
        patterns.extend((index, "", re.compile(pattern)) for pattern in rule.patterns)
    for name, spec in cues.items():
        if name not in CUE_NAMES:
            raise ValueError(f"unknown cue set {name!r}")
        for term in spec.get("terms", ()):
            cue_terms.setdefault(fold_text(term), []).append(name)
        patterns.extend((-1, name, re.compile(pattern)) for pattern in spec.get("patterns", ()))
    for term in exclusions:
        cue_terms.setdefault(fold_text(term), []).append(EXCLUSION)
    automaton = ahocorasick.Automaton()
    for term in rule_terms.keys() | cue_terms.keys():
        automaton.add_word(term, (term, tuple(rule_terms.get(term, ())), tuple(cue_terms.get(term, ()))))
    automaton.make_automaton()
    return automaton, tuple(patterns)


def pack_from_dict(data: dict) -> SafetyPack:
    """Build the pack from its JSON object; raise ValueError when it is malformed."""
    try:
        rules = tuple(_rule_from_dict(item) for item in data["rules"])
        constants = data["scoring"]
        scoring = Scoring(
            mitigation_factor=float(constants["mitigation_factor"]),
            prefix_window=int(constants["prefix_window"]),
            boost_before=int(constants["boost_window"][0]),
            boost_after=int(constants["boost_window"][1]),
            category_caps=tuple((str(k), float(v)) for k, v in constants["category_caps"].items()),
            sentence_breaks=re.compile(f"[{re.escape(constants['sentence_breaks'])}]"),
            negation=re.compile(f"(?:{'|'.join(constants['negation'])})[^，,。]{{0,2}}$"),
            passive=re.compile(f"(?:{'|'.join(constants['passive'])})[^，,。]{{0,3}}$"),
            pseudo_negation=_alternation(list(constants["pseudo_negation"])),
            victim_after=re.compile(f"(?:{'|'.join(constants['victim_after'])})"),
        )
        automaton, patterns = _build_matchers(rules, data["cues"], data.get("exclusions", ()))
        version = str(data["version"])
    except (KeyError, TypeError, re.error) as exc:
        raise ValueError(f"malformed safety pack: {exc!r}") from exc
    duplicates = [rule_id for rule_id, n in Counter(rule.id for rule in rules).items() if n > 1]
    if duplicates:
        raise ValueError(f"duplicate safety rule ids: {duplicates}")
    return SafetyPack(version=version, rules=rules, scoring=scoring, automaton=automaton, patterns=patterns)


@lru_cache(maxsize=4)
def load_safety_pack(path: Path = SAFETY_PATH) -> SafetyPack:
    """Read, validate and cache the safety pack (the automaton is built once per process)."""
    with open(path, encoding="utf-8") as handle:
        return pack_from_dict(json.load(handle))
