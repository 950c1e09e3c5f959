"""Deterministic safety scoring: rule hits in their sentence context, per-category scores and one risk."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

from rules.normalize.script import has_traditional, to_simplified
from rules.normalize.width import fold_text
from rules.safety.pack import EXCLUSION, SafetyPack, SafetyRule, load_safety_pack


@dataclass(frozen=True)
class SafetyHit:
    """One rule hit kept in the score: span in the original text and the weight it contributed."""

    rule_id: str
    category: str
    term: str
    start: int
    end: int
    weight: float
    # The cue that set the weight ("intent", "stealth" ...), "mitigated:<cue>" when lowered, "" when alone.
    context: str = ""


@dataclass(frozen=True)
class SafetyAssessment:
    """Risk in [0, 1] (the highest category score), every category's score, the hits behind them."""

    risk: float
    categories: dict[str, float]
    hits: tuple[SafetyHit, ...]
    pack_version: str
    # The context cues found anywhere in the text (intent, protect, report ...), whether or not a rule hit.
    cues: frozenset[str] = frozenset()

    @property
    def top_category(self) -> str | None:
        """The category with the highest score, or None when nothing scored."""
        if not self.categories:
            return None
        return max(self.categories.items(), key=lambda item: (item[1], item[0]))[0]


@dataclass(frozen=True)
class _Candidate:
    """A rule occurrence before context is applied."""

    index: int
    start: int
    end: int


def matching_text(text: str) -> str:
    """Width-folded, lower-cased and, when that keeps offsets, simplified text to match on."""
    folded = fold_text(text)
    if has_traditional(folded):
        simplified, _config = to_simplified(folded)
        # Offsets must keep meaning the same characters; a phrase conversion that changes length is not used.
        if len(simplified) == len(folded):
            return simplified
    return folded


Cue = tuple[int, int]  # (start, end) of one cue occurrence


def _scan(folded: str, pack: SafetyPack) -> tuple[list[_Candidate], dict[str, list[Cue]]]:
    """Rule occurrences and cue spans (by cue name) from the automaton pass and the pack's few regexes."""
    candidates: list[_Candidate] = []
    cues: dict[str, list[Cue]] = {}
    for (rule_indices, cue_names), start, end in pack.automaton.find(folded):
        candidates.extend(_Candidate(index, start, end) for index in rule_indices)
        for name in cue_names:
            cues.setdefault(name, []).append((start, end))
    # Only the regexes whose first character occurs in the text can match; the rest are not run.
    if pack.head_index or pack.headless:
        chosen = set(pack.headless)
        for char in pack.head_index.keys() & set(folded):
            chosen.update(pack.head_index[char])
        runs = sorted(chosen)
    else:
        runs = list(range(len(pack.patterns)))
    for number in runs:
        index, cue_name, pattern = pack.patterns[number]
        for match in pattern.finditer(folded):
            if index >= 0:
                candidates.append(_Candidate(index, match.start(), match.end()))
            else:
                cues.setdefault(cue_name, []).append((match.start(), match.end()))
    for spans in cues.values():
        spans.sort()
    return candidates, cues


def _near(spans: list[Cue], low: int, high: int) -> bool:
    """Whether a cue starts in [low, high) (spans sorted by start)."""
    i = bisect_left(spans, (low, -1))
    return i < len(spans) and spans[i][0] < high


def _excluded(spans: list[Cue], start: int, end: int) -> bool:
    """Whether the hit lies inside an exclusion word ("人畜生存" around "畜生")."""
    return any(s <= start and end <= e for s, e in spans if s < end and e > start)


def _prefix_matches(folded: str, start: int, sentence_start: int, pack: SafetyPack) -> tuple[bool, bool]:
    """Whether a negation (不要吸毒) or a passive/victim marker (被诈骗) ends just before `start`."""
    scoring = pack.scoring
    window = folded[max(sentence_start, start - scoring.prefix_window) : start]
    # Blank out look-alikes (不被发现, 不择手段, 不法) so their 不 does not read as a negation.
    window = scoring.pseudo_negation.sub(lambda m: "_" * len(m.group()), window)
    return scoring.negation.search(window) is not None, scoring.passive.search(window) is not None


def _weigh(
    rule: SafetyRule,
    hit: _Candidate,
    sentence: tuple[int, int],
    cues: dict[str, list[Cue]],
    victim: bool,
    pack: SafetyPack,
) -> tuple[float, str]:
    """The rule's weight at this hit: raised by the strongest cue near it, lowered by a mitigating one."""
    scoring = pack.scoring
    # A raising cue must sit close to the object in its sentence: "如何…窃取" is a request, while a long
    # complaint that says 如何 in one clause and 诈骗 in another is not.
    before, after = rule.window or (scoring.boost_before, scoring.boost_after)
    low = max(sentence[0], hit.start - before)
    high = min(sentence[1], hit.end + after)
    weight, context = rule.weight, ""
    for cue, boosted in rule.boosts:
        if boosted > weight and _near(cues.get(cue, []), low, high):
            weight, context = boosted, cue
    # Stealth ("不被发现") marks a perpetrator: a report or a question near it does not soften the request.
    if _near(cues.get("stealth", []), low, high):
        return weight, context
    mitigations = [cue for cue in rule.mitigated_by if _near(cues.get(cue, []), sentence[0], sentence[1])]
    if victim and "victim" in rule.mitigated_by:
        mitigations.insert(0, "victim")
    if mitigations:
        return weight * scoring.mitigation_factor, f"mitigated:{mitigations[0]}"
    return weight, context


def safety_score(text: str, *, pack: SafetyPack | None = None) -> SafetyAssessment:
    """Score one text: per category 1 - Π(1 - w) over its rules' best hits, capped; risk is the maximum."""
    pack = pack or load_safety_pack()
    folded = matching_text(text)
    breaks = [match.end() for match in pack.scoring.sentence_breaks.finditer(folded)]
    starts = [0, *breaks]
    ends = [*breaks, len(folded)]
    candidates, cues = _scan(folded, pack)
    exclusions = cues.get(EXCLUSION, [])
    best: dict[str, SafetyHit] = {}  # rule id -> its strongest hit
    for candidate in sorted(candidates, key=lambda c: (c.start, -c.end, c.index)):
        rule = pack.rules[candidate.index]
        sentence = bisect_right(breaks, candidate.start)
        if exclusions and _excluded(exclusions, candidate.start, candidate.end):
            continue
        negated, passive = _prefix_matches(folded, candidate.start, starts[sentence], pack)
        if negated and rule.negatable:
            continue
        # The speaker as the one harmed: 被骗 before the term, or 欺骗我们 after it.
        victim = passive or pack.scoring.victim_after.match(folded, candidate.end) is not None
        weight, context = _weigh(rule, candidate, (starts[sentence], ends[sentence]), cues, victim, pack)
        if weight <= 0.0:
            continue
        previous = best.get(rule.id)
        if previous is None or weight > previous.weight:
            term = text[candidate.start : candidate.end]
            best[rule.id] = SafetyHit(
                rule.id, rule.category, term, candidate.start, candidate.end, round(weight, 4), context
            )
    caps = dict(pack.scoring.category_caps)
    remaining: dict[str, float] = {}
    for hit in best.values():
        remaining[hit.category] = remaining.get(hit.category, 1.0) * (1.0 - hit.weight)
    categories = {
        category: round(min(caps.get(category, 1.0), 1.0 - rest), 4) for category, rest in sorted(remaining.items())
    }
    hits = tuple(sorted(best.values(), key=lambda hit: (hit.start, hit.end, hit.rule_id)))
    present = frozenset(name for name, spans in cues.items() if spans and name != EXCLUSION)
    return SafetyAssessment(max(categories.values(), default=0.0), categories, hits, pack.version, present)
