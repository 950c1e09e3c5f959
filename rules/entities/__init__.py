"""Entity extraction over contracts and tickets: a blank spaCy zh pipeline plus validated regex finders."""

from __future__ import annotations

from rules.entities.groups import EntityGroup, entity_groups
from rules.entities.model import ENTITY_PACK, LABEL_PRIORITY, Entity, resolve_overlaps
from rules.entities.pipeline import entity_pipeline, extract_entities

LABELS = tuple(LABEL_PRIORITY)

__all__ = [
    "ENTITY_PACK",
    "LABELS",
    "Entity",
    "EntityGroup",
    "entity_groups",
    "entity_pipeline",
    "extract_entities",
    "resolve_overlaps",
]
