"""Where a ticket's complaint is: the place it names, found by the entity rules' region and address matchers.

A place has a `label` (as written: A3区长丰路, A市A5区) and a `key`, its finest administrative unit (A3区, A5区), so
that tickets naming one street or one district the same way or differently are grouped together. Only the place
finders of the entity rules run (the region gazetteer, anonymised regions, region chains and addresses), not the
whole spaCy pipeline: over a board's tickets that is ~40 times faster and finds the same places.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from rules.entities import Entity, resolve_overlaps
from rules.entities.addresses import address_mask_start, find_cued_addresses
from rules.entities.expressions import find_anonymised_regions
from rules.entities.lexicon import region_terms
from rules.entities.pipeline import region_chains
from rules.term_search import TermIndex

PLACE_LABELS = frozenset({"REGION", "ADDRESS"})
# The units of a region chain, coarse to fine: a ticket's place is its finest named unit.
_UNIT_END = re.compile("(?:自治州|地区|街道|[省市区县旗镇乡])")
_LEVELS = {"省": 0, "自治州": 1, "地区": 1, "市": 1, "区": 2, "县": 2, "旗": 2, "街道": 3, "镇": 3, "乡": 3}
STREET_LEVEL = 4


@dataclass(frozen=True)
class Place:
    """A named place: the words as written, the finest administrative unit in them, and how fine that is."""

    label: str
    key: str
    level: int


@functools.cache
def _gazetteer() -> TermIndex[None]:
    return TermIndex((term, None) for term in region_terms())


def place_entities(text: str) -> list[Entity]:
    """The regions and addresses of the text, non-overlapping, in order, as the entity pipeline resolves them."""
    regions = find_anonymised_regions(text)
    regions += [
        Entity("REGION", s, e, text[s:e], None, False, "region.gazetteer") for _, s, e in _gazetteer().find(text)
    ]
    candidates = [*regions, *find_cued_addresses(text), *region_chains(text, regions)]
    return resolve_overlaps(candidates, len(text))


def _runs(entities: list[Entity]) -> list[tuple[int, int, bool]]:
    """Adjacent region and address entities joined into runs: (start, end, holds a street-level address)."""
    runs: list[tuple[int, int, bool]] = []
    for entity in entities:
        if entity.label not in PLACE_LABELS or entity.is_pii:  # a person's home address is not a hotspot's place
            continue
        street = entity.label == "ADDRESS"
        if runs and runs[-1][1] == entity.start:
            start, _, had_street = runs[-1]
            runs[-1] = (start, entity.end, had_street or street)
        else:
            runs.append((entity.start, entity.end, street))
    return runs


def place_of_words(label: str, street: bool = False) -> Place:
    """The place a run of region (and street) words names; its key is the finest unit before the street part."""
    head = label[: address_mask_start(label)] if street else label
    units = list(_UNIT_END.finditer(head))
    if not units:
        return Place(label, label, STREET_LEVEL if street else 0)
    last = units[-1]
    start = units[-2].end() if len(units) > 1 else 0
    level = STREET_LEVEL if street and len(head) < len(label) else _LEVELS.get(last.group(), 0)
    return Place(label, head[start : last.end()], level)


def ticket_place(text: str) -> Place | None:
    """The most specific place the text names (a street address before a district, a district before a city;
    the first of equals), or None when it names none."""
    runs = _runs(place_entities(text))
    places = [place_of_words(text[start:end], street) for start, end, street in runs]
    if not places:
        return None
    return max(places, key=lambda place: place.level)  # max keeps the first of equally specific places
