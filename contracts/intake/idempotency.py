"""Idempotency-Key handling: replay the first answer for the same key and body, refuse a different body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from contracts.models import IdempotencyRecord, Organisation

MAX_KEY_LENGTH = 255


class IdempotencyConflict(Exception):
    """The key was used before with a different request."""


@dataclass(frozen=True)
class StoredAnswer:
    """The response recorded for a key."""

    status: int
    body: Any


def idempotency_lookup(*, organisation: Organisation, key: str, fingerprint: str) -> StoredAnswer | None:
    """Return the stored answer for this key, None if unused; raise IdempotencyConflict on another body."""
    record = IdempotencyRecord.objects.filter(organisation=organisation, key=key).first()
    if record is None:
        return None
    if record.request_fingerprint != fingerprint:
        raise IdempotencyConflict(key)
    return StoredAnswer(status=record.response_status, body=record.response_body)


def idempotency_store(
    *, organisation: Organisation, key: str, fingerprint: str, status: int, body: Any
) -> StoredAnswer:
    """Record the answer for a key; if a concurrent request stored one first, return that one instead."""
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(
                organisation=organisation,
                key=key,
                request_fingerprint=fingerprint,
                response_status=status,
                response_body=body,
            )
    except IntegrityError:
        stored = idempotency_lookup(organisation=organisation, key=key, fingerprint=fingerprint)
        if stored is not None:
            return stored
        raise
    return StoredAnswer(status=status, body=body)
