"""Urgency cues in a ticket (安全隐患, 人身安全, 紧急, 多次反映 ...), negation aware, from `tickets_urgency.json`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from rules.normalize.width import fold_text
from rules.term_search import TermIndex
from rules.tickets.taxonomy import PACKS_DIR

URGENCY_PATH = PACKS_DIR / "tickets_urgency.json"
LEVELS = ("normal", "high", "urgent")


@dataclass(frozen=True)
class UrgencyCue:
    """One cue found in the ticket, with its span in the original text."""

    rule_id: str
    kind: str
    severity: str
    term: str
    start: int
    end: int


@dataclass(frozen=True)
class Urgency:
    """Urgency level (normal | high | urgent), the cues behind it and the negated cues that were ignored."""

    level: str
    cues: tuple[UrgencyCue, ...]
    negated: tuple[UrgencyCue, ...]
    pack_version: str


@dataclass(frozen=True)
class UrgencyPack:
    """Cue automaton and negation settings."""

    version: str
    automaton: TermIndex[tuple[str, str, str]]  # folded term -> (cue id, kind, severity)
    negation: re.Pattern[str]
    pseudo_negation: re.Pattern[str]
    clause_break: re.Pattern[str]
    window: int


@lru_cache(maxsize=2)
def load_urgency_pack(path: Path = URGENCY_PATH) -> UrgencyPack:
    """Read the urgency pack and build its automaton once; raise ValueError when it is malformed."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    try:
        entries: dict[str, tuple[str, str, str]] = {}
        for cue in data["cues"]:
            if cue["severity"] not in LEVELS[1:]:
                raise ValueError(f"{cue['id']}: severity must be high or urgent")
            for term in cue["terms"]:
                folded = fold_text(term)
                if folded in entries:
                    raise ValueError(f"{cue['id']}: urgency term {term!r} is listed twice")
                entries[folded] = (cue["id"], cue["kind"], cue["severity"])
        automaton = TermIndex(entries.items())
        # Longest alternatives first so "不存在" is tried before "不".
        negations = sorted(data["negations"], key=len, reverse=True)
        pseudo = sorted(data["pseudo_negations"], key=len, reverse=True)
        return UrgencyPack(
            version=str(data["version"]),
            automaton=automaton,
            negation=re.compile("|".join(map(re.escape, negations))),
            pseudo_negation=re.compile("|".join(map(re.escape, pseudo))),
            clause_break=re.compile(f"[{re.escape(data['clause_breaks'])}]"),
            window=int(data["negation_window"]),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed urgency pack: {exc!r}") from exc


def _negated(folded: str, start: int, pack: UrgencyPack) -> bool:
    """Whether a negation ends within the window before `start`, in the same clause."""
    window = folded[max(0, start - pack.window) : start]
    breaks = list(pack.clause_break.finditer(window))
    if breaks:
        window = window[breaks[-1].end() :]
    # Blank out look-alikes (不少, 不断, 无法) so their 不/无 does not read as a negation.
    window = pack.pseudo_negation.sub(lambda m: "_" * len(m.group()), window)
    return pack.negation.search(window) is not None


def urgency_cues(text: str, *, pack: UrgencyPack | None = None) -> Urgency:
    """Find urgency cues in one pass and grade the ticket (rule in the pack's description)."""
    pack = pack or load_urgency_pack()
    folded = fold_text(text)
    found: list[UrgencyCue] = []
    for (rule_id, kind, severity), start, end in pack.automaton.find(folded):
        found.append(UrgencyCue(rule_id, kind, severity, text[start:end], start, end))
    # "安全隐患" already says what "隐患" would: keep the longest of nested hits.
    found.sort(key=lambda cue: (cue.start, -(cue.end - cue.start)))
    kept: list[UrgencyCue] = []
    covered_until = -1
    for cue in found:
        if cue.end <= covered_until:
            continue
        covered_until = max(covered_until, cue.end)
        kept.append(cue)
    cues = tuple(cue for cue in kept if not _negated(folded, cue.start, pack))
    negated = tuple(cue for cue in kept if cue not in cues)
    if any(cue.severity == "urgent" for cue in cues) or len({cue.kind for cue in cues}) >= 2:
        level = "urgent"
    elif cues:
        level = "high"
    else:
        level = "normal"
    return Urgency(level=level, cues=cues, negated=negated, pack_version=pack.version)
