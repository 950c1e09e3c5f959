"""The spaCy pipeline: blank zh (char segmenter) + EntityRuler + regex and overlap-resolution components."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from rules.entities.addresses import address_after_regions, find_cued_addresses
from rules.entities.expressions import (
    find_anonymised_regions,
    find_dates,
    find_durations,
    find_money,
    find_party_names,
    find_percents,
    region_links_after,
)
from rules.entities.identifiers import find_emails, find_numbers, find_person_names
from rules.entities.lexicon import ruler_patterns
from rules.entities.model import Entity, resolve_overlaps

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

REGEX_COMPONENT = "docgate_regex_entities"
RESOLVE_COMPONENT = "docgate_resolve_entities"
CANDIDATES_KEY = "docgate_candidates"
# spaCy refuses longer texts by default; one char-segmented doc of this size stays well under a gigabyte.
MAX_CHUNK_CHARS = 1_000_000

TEXT_FINDERS: tuple[Callable[[str], list[Entity]], ...] = (
    find_money,
    find_percents,
    find_dates,
    find_durations,
    find_numbers,
    find_emails,
    find_person_names,
    find_party_names,
    find_anonymised_regions,
    find_cued_addresses,
)
# Ruler hits for a bare role inside a longer word (购买方式, 买方案, 投资方向, 提供方) are not parties.
_ROLE_VETO_BEFORE = frozenset("购提")
_ROLE_VETO_AFTER = frozenset("式法案面向")


def _ruler_entities(doc: Doc) -> list[Entity]:
    """Return the EntityRuler's matches as entities, dropping party roles that are part of another word."""
    text = doc.text
    found: list[Entity] = []
    for ent in doc.ents:
        start, end = ent.start_char, ent.end_char
        before = text[start - 1] if start else ""
        after = text[end] if end < len(text) else ""
        if ent.label_ == "PARTY" and (before in _ROLE_VETO_BEFORE or after in _ROLE_VETO_AFTER):
            continue
        value = ent.text if ent.label_ == "PARTY" else None
        rule_id = ent.ent_id_ or ent.label_.lower()
        found.append(Entity(ent.label_, start, end, ent.text, value, False, rule_id))
    return found


def region_chains(text: str, regions: list[Entity]) -> Iterator[Entity]:
    """Yield units continuing each region (北京市→海淀区) and the address such a chain leads to."""
    for region in regions:
        links = region_links_after(text, region.end)
        yield from links
        chain_end = links[-1].end if links else region.end
        address = address_after_regions(text, region.start, chain_end)
        if address is not None:
            yield address


def regex_entities_component(doc: Doc) -> Doc:
    """spaCy component: run the regex finders over doc.text and keep candidates as span-aligned entities."""
    text = doc.text
    candidates = _ruler_entities(doc)
    for finder in TEXT_FINDERS:
        candidates.extend(finder(text))
    regions = [entity for entity in candidates if entity.label == "REGION"]
    candidates.extend(region_chains(text, regions))
    aligned: list[Entity] = []
    spans = []
    for entity in candidates:
        span = doc.char_span(entity.start, entity.end, label=entity.label, alignment_mode="expand")
        if span is None:
            continue
        spans.append(span)
        if (span.start_char, span.end_char) != (entity.start, entity.end):
            entity = Entity(entity.label, span.start_char, span.end_char, span.text, *_tail(entity))
        aligned.append(entity)
    doc.spans[CANDIDATES_KEY] = spans
    doc._.docgate_candidates = aligned
    return doc


def _tail(entity: Entity) -> tuple[str | None, bool, str]:
    """Return the fields of an entity that do not depend on its span."""
    return entity.value, entity.is_pii, entity.rule_id


def resolve_entities_component(doc: Doc) -> Doc:
    """spaCy component: resolve overlapping candidates (longest, then most specific) and set doc.ents."""
    from spacy.util import filter_spans  # heavy: spaCy, loaded on first entity extraction

    resolved = resolve_overlaps(doc._.docgate_candidates or [], len(doc.text))
    spans = [doc.char_span(e.start, e.end, label=e.label, alignment_mode="expand") for e in resolved]
    doc.set_ents(filter_spans([span for span in spans if span is not None]), default="outside")
    doc._.docgate_entities = resolved
    return doc


def _register_components() -> None:
    """Register the custom components and Doc extensions once per process."""
    from spacy.language import Language  # heavy: spaCy, loaded on first entity extraction
    from spacy.tokens import Doc  # heavy: spaCy, loaded on first entity extraction

    for name in ("docgate_candidates", "docgate_entities"):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    if not Language.has_factory(REGEX_COMPONENT):
        Language.component(REGEX_COMPONENT, func=regex_entities_component)
    if not Language.has_factory(RESOLVE_COMPONENT):
        Language.component(RESOLVE_COMPONENT, func=resolve_entities_component)


@functools.cache
def entity_pipeline() -> Language:
    """Return the cached pipeline: blank zh with char segmentation, EntityRuler, regex and resolve steps."""
    import spacy  # heavy: spaCy, loaded on first entity extraction

    _register_components()
    nlp = spacy.blank("zh")  # char segmenter: offline, no model download, and every char offset is a boundary
    nlp.max_length = MAX_CHUNK_CHARS + 1
    ruler = nlp.add_pipe("entity_ruler", config={"overwrite_ents": True})
    ruler.add_patterns(ruler_patterns())  # type: ignore[attr-defined]
    nlp.add_pipe(REGEX_COMPONENT)
    nlp.add_pipe(RESOLVE_COMPONENT)
    return nlp


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    """Yield (offset, piece) pieces of at most MAX_CHUNK_CHARS, cut after a newline where one is near."""
    offset = 0
    while len(text) - offset > MAX_CHUNK_CHARS:
        cut = text.rfind("\n", offset, offset + MAX_CHUNK_CHARS)
        cut = cut + 1 if cut > offset else offset + MAX_CHUNK_CHARS
        yield offset, text[offset:cut]
        offset = cut
    yield offset, text[offset:]


def _shift(entity: Entity, offset: int) -> Entity:
    """Return the entity moved by offset characters."""
    return Entity(entity.label, entity.start + offset, entity.end + offset, entity.text, *_tail(entity))


def extract_entities(text: str) -> list[Entity]:
    """Return the resolved, non-overlapping entities of text in order (MONEY, DATE, PHONE, ID_NUMBER …)."""
    if not text:
        return []
    nlp = entity_pipeline()
    entities: list[Entity] = []
    for offset, piece in _chunks(text):
        doc = nlp(piece)
        entities.extend(_shift(entity, offset) if offset else entity for entity in doc._.docgate_entities)
    return entities
