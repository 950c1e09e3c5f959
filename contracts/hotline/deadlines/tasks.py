"""The hotline desk's periodic task (imported by workers through CELERY_IMPORTS; beat sends it by name)."""

from __future__ import annotations

from celery import shared_task

from contracts.hotline.deadlines.escalation import deadlines_escalate


@shared_task(acks_late=True)
def ticket_deadlines_escalate_task() -> dict[str, int]:
    """Mark tickets due soon and overdue, once each (beat, every DOCGATE_DEADLINE_SWEEP_INTERVAL_S)."""
    return deadlines_escalate()
