"""Idempotency-Key handling: replay the first answer for the same key and body, refuse a different body."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from contracts.models import IdempotencyRecord, Organisation
from contracts.refusals import Refused

MAX_KEY_LENGTH = 255


class IdempotencyConflict(Refused):
    """The key was used before with a different request (a JSON 409)."""

    status = 409

    def __init__(self, key: str) -> None:
        super().__init__("idempotency_conflict", _("This Idempotency-Key was used with a different request."))
        self.key = key


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


def idempotent(
    *, organisation: Organisation, key: str, fingerprint: str, answer: Callable[[], tuple[int, Any]]
) -> tuple[StoredAnswer, bool]:
    """Answer a request carrying `key` once; return (the answer, whether it is a replay).

    The same key and body replay the stored answer; another body raises IdempotencyConflict. Otherwise the key's
    row is inserted first and `answer()` runs in the same transaction: a concurrent request with the same key
    waits on that row (the unique index) until this one commits, then replays its answer or is refused — it never
    submits a second document."""
    stored = idempotency_lookup(organisation=organisation, key=key, fingerprint=fingerprint)
    if stored is not None:
        return stored, True
    try:
        with transaction.atomic():
            record = IdempotencyRecord.objects.create(
                organisation=organisation, key=key, request_fingerprint=fingerprint, response_status=0, response_body={}
            )
            status, body = answer()
            record.response_status, record.response_body = status, body
            record.save(update_fields=["response_status", "response_body"])
    except IntegrityError:
        stored = idempotency_lookup(organisation=organisation, key=key, fingerprint=fingerprint)
        if stored is None:
            raise
        return stored, True
    return StoredAnswer(status=status, body=body), False
