"""DocGate's 3-level ticket taxonomy and routing departments, read from `rules/packs/ticket_taxonomy.json`."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

PACKS_DIR = Path(__file__).resolve().parents[1] / "packs"
TAXONOMY_PATH = PACKS_DIR / "ticket_taxonomy.json"
# Level-3 names that say nothing about the topic; never used as evidence.
GENERIC_NAMES = frozenset({"其他"})


@dataclass(frozen=True)
class Level2:
    """One level-2 category: its level-3 names and an optional routing department of its own."""

    name: str
    level3: tuple[str, ...]
    department: str | None = None


@dataclass(frozen=True)
class Level1:
    """One level-1 category with its default routing department."""

    name: str
    department: str
    level2: tuple[Level2, ...]


@dataclass(frozen=True)
class Taxonomy:
    """The whole taxonomy plus its version and provenance."""

    version: str
    source: str
    categories: tuple[Level1, ...]

    @property
    def level1_names(self) -> tuple[str, ...]:
        return tuple(category.name for category in self.categories)

    def category(self, level1: str) -> Level1:
        """Return the level-1 category; raise KeyError for a name outside the taxonomy."""
        for category in self.categories:
            if category.name == level1:
                return category
        raise KeyError(f"unknown level-1 ticket category: {level1}")

    def department(self, level1: str, level2: str | None = None) -> str:
        """Return the routing department: the level-2 override when there is one, else the level-1 default."""
        category = self.category(level1)
        for sub in category.level2:
            if sub.name == level2 and sub.department:
                return sub.department
        return category.department

    def paths(self) -> Iterator[tuple[str, str, str]]:
        """Yield every (level1, level2, level3) triple in file order."""
        for category in self.categories:
            for sub in category.level2:
                for name in sub.level3:
                    yield category.name, sub.name, name

    def has_path(self, level1: str, level2: str | None, level3: str | None = None) -> bool:
        """Whether the (partial) path exists in the taxonomy."""
        if level2 is None:
            return level1 in self.level1_names
        return any((l1, l2) == (level1, level2) and (level3 is None or l3 == level3) for l1, l2, l3 in self.paths())


def taxonomy_from_dict(data: dict) -> Taxonomy:
    """Build a Taxonomy from the pack's JSON object; raise ValueError when a field is missing."""
    try:
        categories = tuple(
            Level1(
                name=item["level1"],
                department=item["department"],
                level2=tuple(
                    Level2(name=sub["name"], level3=tuple(sub["level3"]), department=sub.get("department"))
                    for sub in item["level2"]
                ),
            )
            for item in data["categories"]
        )
        return Taxonomy(version=data["version"], source=data["source"], categories=categories)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed ticket taxonomy pack: {exc!r}") from exc


@lru_cache(maxsize=4)
def load_taxonomy(path: Path = TAXONOMY_PATH) -> Taxonomy:
    """Read and cache the taxonomy pack."""
    with open(path, encoding="utf-8") as handle:
        return taxonomy_from_dict(json.load(handle))


def csv_paths(path: str | Path) -> list[tuple[str, str, str]]:
    """Read an organiser-style `level1,level2,level3` CSV (used to check that the pack maps onto it exactly)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return [(row["level1"], row["level2"], row["level3"]) for row in csv.DictReader(handle)]
