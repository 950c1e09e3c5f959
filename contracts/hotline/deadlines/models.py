"""The deadline models: a ticket's clock and progress, and an organisation's own service levels (re-exported by
`contracts.models`, which Django reads)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class DeadlineState(models.TextChoices):
    ON_TIME = "on_time", _("On time")
    DUE_SOON = "due_soon", _("Due soon")
    OVERDUE = "overdue", _("Overdue")


class Progress(models.TextChoices):
    RECEIVED = "received", _("Received")
    DISPATCHED = "dispatched", _("Dispatched")
    ANSWERED = "answered", _("Answered")
    CLOSED = "closed", _("Closed")
    RETURNED = "returned", _("Returned")


class ServiceTier(models.TextChoices):
    EMERGENCY = "emergency", _("Emergency")
    UTILITIES = "utilities", _("Water, power, gas, heating")
    GENERAL = "general", _("General")
    COMPLEX = "complex", _("Complex")


class LimitUnit(models.TextChoices):
    HOURS = "hours", _("hours")
    WORKING_DAYS = "working_days", _("working days")


class TicketDeadline(models.Model):
    """A ticket's clock: received when the citizen called or wrote, due by its tier; marked due soon and overdue
    once each by beat; stopped by `answered` or `closed`. One row per ticket, beside its Document, so that beat
    finds the next tickets to mark by two partial indexes without reading results or jobs."""

    document = models.OneToOneField(
        "contracts.Document", on_delete=models.CASCADE, primary_key=True, related_name="ticket_deadline"
    )
    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    received_at = models.DateTimeField()
    tier = models.CharField(max_length=16, choices=ServiceTier.choices, blank=True)
    limit = models.PositiveIntegerField(null=True, blank=True)
    unit = models.CharField(max_length=16, choices=LimitUnit.choices, blank=True)
    rule_id = models.CharField(max_length=64, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)  # null until the ticket's first result is stored
    due_soon_at = models.DateTimeField(null=True, blank=True)
    state = models.CharField(max_length=16, choices=DeadlineState.choices, default=DeadlineState.ON_TIME)
    due_soon_marked_at = models.DateTimeField(null=True, blank=True)
    overdue_marked_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)  # answered or closed: no escalation after
    progress = models.CharField(max_length=16, choices=Progress.choices, default=Progress.RECEIVED)
    progress_at = models.DateTimeField(null=True, blank=True)
    department = models.CharField(max_length=200, blank=True)
    return_reason = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(
                fields=["due_soon_at"], name="deadline_due_soon", condition=Q(state="on_time", stopped_at__isnull=True)
            ),
            models.Index(
                fields=["due_at"],
                name="deadline_overdue",
                condition=Q(state__in=["on_time", "due_soon"], stopped_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"deadline of {self.document_id} ({self.state}, {self.progress})"


class ServiceLevel(models.Model):
    """An organisation's own time limit for one tier, replacing the service-level pack's (which tickets fall in
    which tier stays the pack's)."""

    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="service_levels")
    tier = models.CharField(max_length=16, choices=ServiceTier.choices)
    limit = models.PositiveIntegerField(help_text=_("How many hours or working days the tier allows."))
    unit = models.CharField(max_length=16, choices=LimitUnit.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organisation", "tier"], name="one_service_level_per_tier")]

    def __str__(self) -> str:
        return f"{self.tier}: {self.limit} {self.unit}"
