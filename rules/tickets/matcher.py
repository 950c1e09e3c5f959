"""Keyword-rule scoring of a ticket: level-1 label, confidence, level-2/3 path and evidence spans."""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from rules.normalize.width import fold_text
from rules.tickets.pack import TAXONOMY_TERM_WEIGHT, TicketRule, TicketRulePack, load_pack
from rules.tickets.taxonomy import GENERIC_NAMES

# A taxonomy name found literally in the text counts like the pack's own taxonomy-name rules.
VOCABULARY_WEIGHT = TAXONOMY_TERM_WEIGHT


@dataclass(frozen=True)
class TermHit:
    """One matched term: where it is in the original text and which rule it fired."""

    rule_id: str
    level1: str
    term: str
    start: int
    end: int


@dataclass(frozen=True)
class RuleMatch:
    """What the rules say about one ticket; `label` is None when no category reaches the pack's minimum."""

    label: str | None
    level2: str | None
    level3: str | None
    confidence: float
    scores: tuple[tuple[str, float], ...]
    evidence: tuple[TermHit, ...]
    rule_ids: tuple[str, ...]
    pack_version: str


# (level1, start, end, term, rule index): plain tuples, because a long ticket yields thousands of hits.
RawHit = tuple[str, int, int, str, int]


def term_hits(text: str, pack: TicketRulePack, labels: Collection[str] | None = None) -> list[RawHit]:
    """All term occurrences in one automaton pass; a hit nested inside a longer hit of its level-1 is dropped."""
    rules = pack.rules
    hits: list[RawHit] = []
    terms, rules_of = pack.automaton.terms, pack.automaton.values
    for number, start, end in pack.automaton.occurrences(fold_text(text)):
        term = terms[number]
        for index in rules_of[number]:
            hits.append((rules[index].level1, start, -end, term, index))
    if labels is not None:
        allowed = frozenset(labels)
        hits = [hit for hit in hits if hit[0] in allowed]
    # "拖欠工资" must not also count as "工资": per level-1, hits sorted by start then longest first, and a hit
    # ending inside the span already covered is dropped. (End is stored negated so a plain sort does this.)
    hits.sort()
    kept: list[RawHit] = []
    current, covered_until = "", -1
    for level1, start, negative_end, term, index in hits:
        end = -negative_end
        if level1 != current:
            current, covered_until = level1, -1
        if end <= covered_until:
            continue
        covered_until = end
        kept.append((level1, start, end, term, index))
    return kept


def _term_contributions(hits: list[RawHit], pack: TicketRulePack) -> dict[tuple[str, str], tuple[TicketRule, float]]:
    """Per (level1, term): its rule and weight x (1 + ln occurrences), boosted when it occurs in the title."""
    counts: dict[tuple[str, str], list[int]] = {}  # [occurrences, in title, rule index]
    title_chars = pack.scoring.title_chars
    for level1, start, _end, term, index in hits:
        entry = counts.setdefault((level1, term), [0, 0, index])
        entry[0] += 1
        entry[1] |= start < title_chars
    out = {}
    for key, (occurrences, in_title, index) in counts.items():
        rule = pack.rules[index]
        # The subject line leads a hotline ticket and names its topic more reliably than the body.
        boost = pack.scoring.title_boost if in_title else 1.0
        out[key] = (rule, rule.weight * (1.0 + math.log(occurrences)) * boost)
    return out


def _best_path(
    contributions: dict[tuple[str, str], tuple[TicketRule, float]], level1: str, pack: TicketRulePack
) -> tuple[str | None, str | None]:
    """Level-2 (and level-3) of the winning category when their own evidence passes the pack's minimum."""
    level2_scores: dict[str, float] = {}
    level3_scores: dict[tuple[str, str], float] = {}
    for (owner, _term), (rule, score) in contributions.items():
        if owner != level1 or rule.level2 is None:
            continue
        level2_scores[rule.level2] = level2_scores.get(rule.level2, 0.0) + score
        if rule.level3 is not None:
            # Level 3 goes to the single strongest term: "房产证" names the topic, "开发商" is context.
            key = (rule.level2, rule.level3)
            level3_scores[key] = max(level3_scores.get(key, 0.0), score)
    if not level2_scores:
        return None, None
    level2, score2 = max(level2_scores.items(), key=lambda item: item[1])
    if score2 < pack.scoring.level2_min_score:
        return None, None
    candidates = [(name, score) for (parent, name), score in level3_scores.items() if parent == level2]
    if not candidates:
        return level2, None
    level3, score3 = max(candidates, key=lambda item: item[1])
    return level2, (level3 if score3 >= pack.scoring.level3_min_score else None)


def rule_match(text: str, *, labels: Collection[str] | None = None, pack: TicketRulePack | None = None) -> RuleMatch:
    """Score every level-1 category (or only `labels`, the categories an organisation routes) for one ticket."""
    pack = pack or load_pack()
    hits = term_hits(text, pack, labels)
    contributions = _term_contributions(hits, pack)
    totals: dict[str, float] = {}
    for (level1, _term), (_rule, score) in contributions.items():
        totals[level1] = totals.get(level1, 0.0) + score
    ranked = tuple(sorted(((k, round(v, 3)) for k, v in totals.items()), key=lambda item: (-item[1], item[0])))
    if not ranked or ranked[0][1] < pack.scoring.min_score:
        return RuleMatch(None, None, None, 0.0, ranked, (), (), pack.version)
    label, top = ranked[0]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    # Confidence needs both a clear lead (share of the top two) and enough evidence in absolute terms.
    confidence = top / (top + runner_up) * (1.0 - math.exp(-top / pack.scoring.strength_scale))
    level2, level3 = _best_path(contributions, label, pack)
    evidence = tuple(
        TermHit(pack.rules[index].id, level1, term, start, end)
        for level1, start, end, term, index in sorted(hits, key=lambda hit: (hit[1], hit[2]))
        if level1 == label
    )
    rule_ids = tuple(dict.fromkeys(hit.rule_id for hit in evidence))
    return RuleMatch(label, level2, level3, round(confidence, 4), ranked, evidence, rule_ids, pack.version)


def path_scores(text: str, level1: str, *, pack: TicketRulePack | None = None) -> dict[tuple[str, str | None], float]:
    """Evidence for each level-2 / level-3 path under `level1`: its rules' term scores, and the taxonomy's own
    level-2 and level-3 names found in the text (also the short or shared ones the pack leaves out of level-1
    scoring: under a chosen level 1 they are unambiguous). Keys are (level2, level3 or None)."""
    pack = pack or load_pack()
    folded = fold_text(text)
    scores: dict[tuple[str, str | None], float] = {}
    for (_owner, _term), (rule, score) in _term_contributions(term_hits(text, pack, [level1]), pack).items():
        if rule.level2 is not None:
            key = (rule.level2, rule.level3)
            scores[key] = max(scores.get(key, 0.0), score)
    category = pack.taxonomy.category(level1) if level1 in pack.taxonomy.level1_names else None
    for sub in category.level2 if category else ():
        if fold_text(sub.name) in folded:
            scores[(sub.name, None)] = max(scores.get((sub.name, None), 0.0), VOCABULARY_WEIGHT)
        for name in sub.level3:
            if name not in GENERIC_NAMES and len(name) >= 2 and fold_text(name) in folded:
                scores[(sub.name, name)] = max(scores.get((sub.name, name), 0.0), VOCABULARY_WEIGHT)
    return scores
