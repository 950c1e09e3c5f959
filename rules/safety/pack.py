"""The safety rule pack (`rules/packs/safety*.json`): rules, context cues and one automaton built from both."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from rules.normalize.width import fold_text
from rules.term_search import TermIndex

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
RAISING_CUES = ("intent", "stealth", "solicit", "coercion", "derogation", "generalize")
LOWERING_CUES = ("report", "complaint", "protect", "question", "victim")
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
    # (before, after) characters in which a boosting cue counts; None: the pack's boost_window.
    window: tuple[int, int] | None = None
    # False for rules whose term names a group or a person rather than an act ("不接待穿着毛衣的客人"):
    # a 不 before it does not negate the harm.
    negatable: bool = True


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
    automaton: TermIndex[tuple[tuple[int, ...], tuple[str, ...]]]  # term -> (rule indices, cue names)
    # (rule index or -1, cue name or "", compiled pattern): the few rules and cues that need a regex.
    patterns: tuple[tuple[int, str, re.Pattern[str]], ...]
    # Per pattern, the characters a match can start with (None: any): a text holding none of them skips it.
    pattern_heads: tuple[frozenset[str] | None, ...] = ()
    # The same, inverted: first character -> indices into `patterns`; and the patterns that always run.
    head_index: dict[str, tuple[int, ...]] = field(default_factory=dict)
    headless: tuple[int, ...] = ()

    @property
    def terms(self) -> tuple[str, ...]:
        """Every distinct literal term of the pack, rules and cues (the benchmark's naive baseline loops over these)."""
        return tuple(sorted(self.automaton.terms))


def _alternation(words: list[str]) -> re.Pattern[str]:
    """One regex that matches any of `words`, longest first; an empty list matches nothing."""
    if not words:
        return re.compile(r"(?!x)x")
    return re.compile("|".join(map(re.escape, sorted(words, key=len, reverse=True))))


_SPECIAL = frozenset("\\[]().*+?{}|^$")


def _closing(pattern: str, start: int) -> int:
    """Index of the parenthesis that closes the group opened at `start` (-1 when unbalanced)."""
    depth = 0
    index = start
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = pattern.find("]", index + 2)
            if index < 0:
                return -1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def _split_top(body: str) -> list[str]:
    """The alternatives of a group body, split at its top-level `|`."""
    parts, depth, current, index = [], 0, [], 0
    while index < len(body):
        char = body[index]
        if char == "\\":
            current.append(body[index : index + 2])
            index += 2
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append("".join(current))
            current = []
            index += 1
            continue
        current.append(char)
        index += 1
    parts.append("".join(current))
    return parts


def pattern_heads(pattern: str) -> frozenset[str] | None:
    """The characters a match of `pattern` must start with, or None when that is not simply known.

    Understands the shapes the pack uses: a leading literal, or a leading group `(?:a|b…)` (or `(…)`) of
    alternatives that each start with a literal or such a group, not followed by `?`, `*` or `{0`. Anything
    else (a class, a look-around, an empty alternative) answers None, and the regex always runs.
    """
    if not pattern:
        return None
    if pattern[0] == "(":
        end = _closing(pattern, 0)
        if end < 0 or pattern[end + 1 : end + 2] in ("?", "*") or pattern[end + 1 : end + 3] == "{0":
            return None
        body = pattern[1:end]
        if body.startswith("?:"):
            body = body[2:]
        elif body.startswith("?"):
            return None
        heads: set[str] = set()
        for alternative in _split_top(body):
            sub = pattern_heads(alternative)
            if sub is None:
                return None
            heads |= sub
        return frozenset(heads)
    if pattern[0] in _SPECIAL or pattern[1:2] in ("?", "*") or pattern[1:3] == "{0":
        return None
    return frozenset(pattern[0])


def _merged_heads(merged: str) -> frozenset[str] | None:
    """First characters of a `_merged` regex: the union over its `(?:…)` alternatives."""
    heads: set[str] = set()
    for alternative in _split_top(merged):
        head = pattern_heads(alternative)
        if head is None:
            return None
        heads |= head
    return frozenset(heads)


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
        window=(int(item["window"][0]), int(item["window"][1])) if "window" in item else None,
        negatable=bool(item.get("negatable", True)),
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


def _merged(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regex for all of a rule's (or cue's) patterns: one pass over the text instead of one per pattern."""
    for pattern in patterns:
        re.compile(pattern)  # each must stand alone (and a bad one is named by re.error)
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def _build_matchers(
    rules: tuple[SafetyRule, ...], cues: dict[str, dict], exclusions: list[str]
) -> tuple[TermIndex[tuple[tuple[int, ...], tuple[str, ...]]], tuple[tuple[int, str, re.Pattern[str]], ...]]:
    """One automaton over rule, cue and exclusion terms: term -> (rule indices, cue names); regexes aside.

    An exclusion is a longer everyday word that contains a rule term ("人畜" holds "畜生"'s 畜): it is stored
    as the cue name EXCLUSION, and a rule hit inside it is dropped.
    """
    rule_terms: dict[str, list[int]] = {}
    cue_terms: dict[str, list[str]] = {}
    patterns: list[tuple[int, str, re.Pattern[str]]] = []
    for index, rule in enumerate(rules):
        for term in rule.terms:
            rule_terms.setdefault(term, []).append(index)
        if rule.patterns:
            patterns.append((index, "", _merged(rule.patterns)))
    for name, spec in cues.items():
        if name not in CUE_NAMES:
            raise ValueError(f"unknown cue set {name!r}")
        for term in spec.get("terms", ()):
            cue_terms.setdefault(fold_text(term), []).append(name)
        if spec.get("patterns"):
            patterns.append((-1, name, _merged(list(spec["patterns"]))))
    for term in exclusions:
        cue_terms.setdefault(fold_text(term), []).append(EXCLUSION)
    automaton = TermIndex(
        (term, (tuple(rule_terms.get(term, ())), tuple(cue_terms.get(term, ()))))
        for term in sorted(rule_terms.keys() | cue_terms.keys())
    )
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
    heads = tuple(_merged_heads(pattern.pattern) for _index, _cue, pattern in patterns)
    head_index: dict[str, list[int]] = {}
    for number, head in enumerate(heads):
        for char in head or ():
            head_index.setdefault(char, []).append(number)
    return SafetyPack(
        version=version,
        rules=rules,
        scoring=scoring,
        automaton=automaton,
        patterns=patterns,
        pattern_heads=heads,
        head_index={char: tuple(numbers) for char, numbers in head_index.items()},
        headless=tuple(number for number, head in enumerate(heads) if head is None),
    )


@lru_cache(maxsize=4)
def load_safety_pack(path: Path = SAFETY_PATH) -> SafetyPack:
    """Read, validate and cache the safety pack (the automaton is built once per process)."""
    with open(path, encoding="utf-8") as handle:
        return pack_from_dict(json.load(handle))
