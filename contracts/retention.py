"""What DocGate forgets on a schedule: Idempotency-Key records older than DOCGATE_IDEMPOTENCY_TTL_S (beat)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from contracts.models import IdempotencyRecord

BATCH = 5000


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the records of keys first used more than DOCGATE_IDEMPOTENCY_TTL_S ago, in batches (each a short
    transaction of its own); return how many went. A key whose record is gone is free again."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.DOCGATE_IDEMPOTENCY_TTL_S)
    expired = IdempotencyRecord.objects.filter(created_at__lt=cutoff)
    deleted = 0
    while batch := list(expired.values_list("pk", flat=True)[:BATCH]):
        deleted += IdempotencyRecord.objects.filter(pk__in=batch).delete()[0]
    return deleted
