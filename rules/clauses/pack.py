"""The clause rule pack: load `rules/packs/clauses.json` and build its one Aho-Corasick term index."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from rules.clauses.structure import fold
from rules.term_search import TermIndex

PACK_PATH = Path(__file__).resolve().parents[1] / "packs" / "clauses.json"
RULE_KINDS = ("keyword", "heading")


@dataclass(frozen=True)
class ClauseRule:
    """One rule: patterns that signal a clause, with the sentence conditions that must hold."""

    rule_id: str
    label: str
    kind: str
    weight: float
    patterns: tuple[str, ...]
    requires: re.Pattern[str] | None
    forbids: re.Pattern[str] | None
    not_preceded_by: tuple[str, ...]
    not_followed_by: tuple[str, ...]
    named: bool
    requires_paragraph: bool


@dataclass(frozen=True)
class ClauseSpec:
    """One clause type of the taxonomy and its extra context cues."""

    label: str
    cuad: str | None
    heading_counts: bool
    negated_before: tuple[re.Pattern[str], ...]
    # What a titled article's body must show for its heading to stand when no rule of the type hits the body
    # ("二、承包期限" over "自＿年＿月＿日起至＿年＿月＿日止": the period is stated, in words no term can list).
    heading_evidence: re.Pattern[str] | None = None


@dataclass(frozen=True)
class ContextCues:
    """Pack-wide cues that mark a hit as negated or merely referenced."""

    negated_before: tuple[re.Pattern[str], ...]
    negated_after: tuple[re.Pattern[str], ...]
    referenced_before: tuple[re.Pattern[str], ...]
    referenced_after: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class ClausePack:
    """A loaded pack: version, clause specs by label, rules, context cues and the automaton."""

    name: str
    version: str
    clauses: dict[str, ClauseSpec]
    rules: tuple[ClauseRule, ...]
    context: ContextCues
    automaton: TermIndex[tuple[int, ...]]  # every pattern of every rule -> the indexes of the rules listing it
    # Per label, its cues merged into one alternation each: (negated before, negated after, referenced
    # before, referenced after); one search answers what searching each cue in turn would.
    status_cues: dict[str, StatusCues]
    # A one-line reason per long literal term (a legal term, a set phrase, a heading, an institution's name): a
    # long term is far likelier to be a fragment of one contract than language, so each must say why it is not.
    term_reasons: dict[str, str] = field(default_factory=dict)


class StatusCues(NamedTuple):
    """A label's context cues, each list merged into one pattern (None when the list is empty)."""

    negated_before: re.Pattern[str] | None
    negated_after: re.Pattern[str] | None
    referenced_before: re.Pattern[str] | None
    referenced_after: re.Pattern[str] | None


def _merge(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str] | None:
    """Merge cue patterns into one alternation that matches wherever any of them does."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{pattern.pattern})" for pattern in patterns))


def _compile(source: str | None) -> re.Pattern[str] | None:
    """Compile an optional regex written in folded form."""
    return re.compile(fold(source)) if source else None


def _compile_all(sources: list[str]) -> tuple[re.Pattern[str], ...]:
    """Compile a list of regexes written in folded form."""
    return tuple(re.compile(fold(source)) for source in sources)


def _rule(raw: dict[str, Any], label: str) -> ClauseRule:
    """Build one rule from its JSON form; raise ValueError on an unknown kind or a missing field."""
    kind = raw.get("kind", "keyword")
    if kind not in RULE_KINDS:
        raise ValueError(f"rule {raw.get('id')!r}: unknown kind {kind!r}")
    if not raw.get("id") or not raw.get("patterns"):
        raise ValueError(f"clause {label!r}: every rule needs an id and patterns")
    return ClauseRule(
        rule_id=raw["id"],
        label=label,
        kind=kind,
        weight=float(raw.get("weight", 0.8)),
        patterns=tuple(fold(pattern) for pattern in raw["patterns"]),
        requires=_compile(raw.get("requires")),
        forbids=_compile(raw.get("forbids")),
        not_preceded_by=tuple(fold(p) for p in raw.get("not_preceded_by", [])),
        not_followed_by=tuple(fold(p) for p in raw.get("not_followed_by", [])),
        named=bool(raw.get("named", False)),
        requires_paragraph=raw.get("requires_scope", "sentence") == "paragraph",
    )


def _term_reasons(raw: object) -> dict[str, str]:
    """Return the pack's term reasons; raise ValueError unless each term and reason is a non-empty string."""
    if not isinstance(raw, dict):
        raise ValueError("term_reasons must map each term to a one-line reason")
    for term, reason in raw.items():
        if not isinstance(term, str) or not term or not isinstance(reason, str) or not reason.strip():
            raise ValueError(f"term_reasons: {term!r} needs a one-line reason")
    return dict(raw)


def pack_from_dict(data: dict[str, Any]) -> ClausePack:
    """Build a ClausePack (and its automaton) from the pack's JSON object."""
    clauses: dict[str, ClauseSpec] = {}
    rules: list[ClauseRule] = []
    for clause in data["clauses"]:
        label = clause["label"]
        clauses[label] = ClauseSpec(
            label=label,
            cuad=clause.get("cuad"),
            heading_counts=bool(clause.get("heading_counts", False)),
            negated_before=_compile_all(clause.get("negated_before", [])),
            heading_evidence=_compile(clause.get("heading_evidence")),
        )
        rules.extend(_rule(raw, label) for raw in clause["rules"])
    ids = [rule.rule_id for rule in rules]
    if len(ids) != len(set(ids)):
        raise ValueError("rule ids in a pack must be unique")
    by_pattern: dict[str, list[int]] = {}
    for index, rule in enumerate(rules):
        for pattern in rule.patterns:
            by_pattern.setdefault(pattern, []).append(index)
    automaton = TermIndex((pattern, tuple(indexes)) for pattern, indexes in by_pattern.items())
    context = data.get("context", {})
    cues = ContextCues(
        negated_before=_compile_all(context.get("negated_before", [])),
        negated_after=_compile_all(context.get("negated_after", [])),
        referenced_before=_compile_all(context.get("referenced_before", [])),
        referenced_after=_compile_all(context.get("referenced_after", [])),
    )
    negated_after, referenced_before = _merge(cues.negated_after), _merge(cues.referenced_before)
    referenced_after = _merge(cues.referenced_after)
    status_cues = {
        label: StatusCues(
            _merge((*cues.negated_before, *spec.negated_before)), negated_after, referenced_before, referenced_after
        )
        for label, spec in clauses.items()
    }
    return ClausePack(
        name=data.get("pack", "clauses"),
        version=str(data["version"]),
        clauses=clauses,
        rules=tuple(rules),
        context=cues,
        automaton=automaton,
        status_cues=status_cues,
        term_reasons=_term_reasons(data.get("term_reasons", {})),
    )


@lru_cache(maxsize=4)
def load_pack(path: str | None = None) -> ClausePack:
    """Return the clause pack at path (default: the bundled pack), built once and cached."""
    with open(path or PACK_PATH, encoding="utf-8") as handle:
        return pack_from_dict(json.load(handle))
