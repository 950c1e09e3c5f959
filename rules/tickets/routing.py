"""Where a classified ticket goes: the department of each candidate category (from the organisation's table, or
DocGate's level-1/2 defaults) and the level-2 / level-3 paths its text suggests under that category."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.tickets.matcher import path_scores
from rules.tickets.pack import TicketRulePack, load_pack
from rules.tickets.taxonomy import Taxonomy

SUGGESTIONS = 3


@dataclass(frozen=True)
class Route:
    """A department and where it came from: `organisation` (its table, at `version`) or `default` (DocGate's)."""

    department: str | None
    source: str
    version: int | None = None


@dataclass(frozen=True)
class DepartmentTable:
    """An organisation's departments per (level1, level2); level2 "" is the level-1 default. Empty: the defaults."""

    taxonomy: Taxonomy
    rows: Mapping[tuple[str, str], tuple[str, int]] = field(default_factory=dict)

    def route(self, level1: str | None, level2: str | None = None) -> Route:
        """The organisation's level-2 row, else its level-1 row, else the taxonomy's level-2 / level-1 default."""
        if not level1 or level1 not in self.taxonomy.level1_names:
            return Route(None, "default")
        for key in ((level1, level2 or ""), (level1, "")):
            if key in self.rows:
                department, version = self.rows[key]
                return Route(department, "organisation", version)
        return Route(self.taxonomy.department(level1, level2), "default")


@dataclass(frozen=True)
class Alternative:
    """One ranked candidate category: its probability (None: rules only, not calibrated), its department and
    the level-2 and level-3 names its text suggests under it, best first."""

    label: str
    probability: float | None
    department: str | None
    department_source: str
    level2: tuple[str, ...]
    level3: tuple[str, ...]


def path_suggestions(
    text: str, level1: str, *, pack: TicketRulePack | None = None, limit: int = SUGGESTIONS
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Up to `limit` level-2 names (by summed evidence) and level-3 names (by their own) under `level1`."""
    scores = path_scores(text, level1, pack=pack or load_pack())
    level2: dict[str, float] = {}
    for (name, _level3), score in scores.items():
        level2[name] = level2.get(name, 0.0) + score
    level3 = sorted(((score, name) for (_l2, name), score in scores.items() if name), key=lambda item: -item[0])
    ranked2 = sorted(level2.items(), key=lambda item: (-item[1], item[0]))
    return tuple(name for name, _ in ranked2[:limit]), tuple(dict.fromkeys(name for _, name in level3))[:limit]


def alternatives(
    text: str,
    ranked: tuple[tuple[str, float | None], ...],
    departments: DepartmentTable,
    *,
    pack: TicketRulePack | None = None,
) -> tuple[Alternative, ...]:
    """The ranked candidates with each one's department (for its best level-2 suggestion) and suggestions."""
    pack = pack or load_pack()
    out = []
    for label, probability in ranked:
        level2, level3 = path_suggestions(text, label, pack=pack)
        route = departments.route(label, level2[0] if level2 else None)
        out.append(Alternative(label, probability, route.department, route.source, level2, level3))
    return tuple(out)
