"""The Entity result type, the rule-pack version and deterministic overlap resolution."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

ENTITY_PACK = ("entities", "2026.12.1")

# Among equally long overlapping candidates the more specific label wins (a checksum beats a shape).
LABEL_PRIORITY = {
    "ID_NUMBER": 10,
    "BANK_CARD": 9,
    "EMAIL": 9,
    "PHONE": 8,
    "MONEY": 7,
    "PERCENT": 7,
    "DATE": 6,
    "ADDRESS": 5,
    "PERSON": 4,
    "DURATION": 3,
    "PARTY": 2,
    "REGION": 1,
}


@dataclass(frozen=True)
class Entity:
    """One entity: label, character span in the input, normalized value and whether it is personal data."""

    label: str
    start: int
    end: int
    text: str
    value: str | None
    is_pii: bool
    rule_id: str


def _rank(entity: Entity) -> tuple[int, int, int, str]:
    """Sort key: longest first, then most specific label, then leftmost, then rule id for determinism."""
    return (-(entity.end - entity.start), -LABEL_PRIORITY.get(entity.label, 0), entity.start, entity.rule_id)


def resolve_overlaps(candidates: Iterable[Entity], text_length: int) -> list[Entity]:
    """Return non-overlapping entities in text order; longest wins, ties go to the more specific label."""
    occupied = bytearray(text_length)
    kept: list[Entity] = []
    for entity in sorted(set(candidates), key=_rank):
        if entity.end <= entity.start or occupied.find(1, entity.start, entity.end) != -1:
            continue
        occupied[entity.start : entity.end] = b"\x01" * (entity.end - entity.start)
        kept.append(entity)
    kept.sort(key=lambda entity: (entity.start, entity.end))
    return kept
