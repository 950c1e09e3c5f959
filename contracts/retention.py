"""What DocGate forgets on a schedule (beat): Idempotency-Key records older than DOCGATE_IDEMPOTENCY_TTL_S, and
the model's answers that no standing window can reach any more."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from contracts.models import IdempotencyRecord, LLMAnswer

BATCH = 5000
# Answers kept per organisation, question and model, in standing windows: an operator who widens
# LLM_STANDING_WINDOW up to this many times still finds the history the wider window reads.
LLM_ANSWER_WINDOWS_KEPT = 5


def idempotency_records_expire(*, now: datetime | None = None) -> int:
    """Delete the records of keys first used more than DOCGATE_IDEMPOTENCY_TTL_S ago, in batches (each a short
    transaction of its own); return how many went. A key whose record is gone is free again."""
    cutoff = (now or timezone.now()) - timedelta(seconds=settings.DOCGATE_IDEMPOTENCY_TTL_S)
    expired = IdempotencyRecord.objects.filter(created_at__lt=cutoff)
    deleted = 0
    while batch := list(expired.values_list("pk", flat=True)[:BATCH]):
        deleted += IdempotencyRecord.objects.filter(pk__in=batch).delete()[0]
    return deleted


def llm_answers_expire() -> int:
    """Delete the model's answers older than the newest LLM_ANSWER_WINDOWS_KEPT × LLM_STANDING_WINDOW of their
    organisation, question and model (no standing reads them; a review that finalises their job later finds
    nothing to re-judge), in batches; return how many went."""
    keep = LLM_ANSWER_WINDOWS_KEPT * max(settings.LLM_STANDING_WINDOW, 1)
    newest = Window(RowNumber(), partition_by=["organisation_id", "task", "model"], order_by=F("id").desc())
    stale = LLMAnswer.objects.annotate(position=newest).filter(position__gt=keep).values_list("pk", flat=True)
    deleted = 0
    while batch := list(stale[:BATCH]):
        deleted += LLMAnswer.objects.filter(pk__in=batch).delete()[0]
    return deleted
