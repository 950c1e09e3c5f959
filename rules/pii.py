"""Personal data in free text: find it with the regex layer (no spaCy) and mask it without moving offsets."""

from __future__ import annotations

import re

from rules.entities.addresses import address_mask_start, find_cued_addresses
from rules.entities.identifiers import find_emails, find_numbers, find_person_names
from rules.entities.model import Entity, resolve_overlaps

__all__ = ["MASK_CHAR", "mask_pii", "pii_spans"]

MASK_CHAR = "*"
_DIGITS_RE = re.compile(r"[0-9０-９]")
_ID_CHARS = frozenset("0123456789０１２３４５６７８９Xx")


def pii_spans(text: str) -> list[Entity]:
    """Return non-overlapping personal data: phones, resident IDs, bank cards, emails, names, addresses."""
    candidates = [entity for entity in find_numbers(text) if entity.is_pii]
    candidates += find_emails(text)
    candidates += find_person_names(text)
    candidates += find_cued_addresses(text, personal_only=True)
    return resolve_overlaps(candidates, len(text))


def _mask_id_chars(raw: str, keep_first: int, keep_last: int) -> str:
    """Return raw with digit characters masked except the first and last few; separators stay."""
    positions = [i for i, char in enumerate(raw) if char in _ID_CHARS]
    hidden = positions[keep_first : max(keep_first, len(positions) - keep_last)]
    chars = list(raw)
    for i in hidden:
        chars[i] = MASK_CHAR
    return "".join(chars)


def _masked(entity: Entity) -> str:
    """Return the masked form of one entity, exactly as long as its text."""
    raw = entity.text
    if entity.label == "PHONE":
        # Keep 138****5678; with a +86 prefix the country code stays visible as well.
        country = 2 if entity.value and len(entity.value) == 13 and entity.value.startswith("86") else 0
        return _mask_id_chars(raw, 3 + country, 4)
    if entity.label == "ID_NUMBER":
        return _mask_id_chars(raw, 6, 4)
    if entity.label == "BANK_CARD":
        return _mask_id_chars(raw, 0, 4)
    if entity.label == "EMAIL":
        local, _, domain = raw.partition("@")
        return local[:1] + MASK_CHAR * (len(local) - 1) + "@" + domain
    if entity.label == "ADDRESS":
        keep = address_mask_start(raw)
        return raw[:keep] + MASK_CHAR * (len(raw) - keep)
    # Names keep the surname: 张** tells a reader a person was there without saying who.
    return raw[:1] + MASK_CHAR * (len(raw) - 1)


def mask_pii(text: str) -> str:
    """Return text with personal data masked character for character, so offsets stay valid; never raises."""
    try:
        spans = pii_spans(text)
        if not spans:
            return text
        pieces: list[str] = []
        cursor = 0
        for entity in spans:
            pieces.append(text[cursor : entity.start])
            pieces.append(_masked(entity))
            cursor = entity.end
        pieces.append(text[cursor:])
        return "".join(pieces)
    except Exception:
        # Logging must never fail because of masking; hiding every digit is a safe fallback of equal length.
        return _DIGITS_RE.sub(MASK_CHAR, text) if isinstance(text, str) else MASK_CHAR * len(str(text))
