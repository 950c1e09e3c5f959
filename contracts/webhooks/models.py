"""The webhook models: where an organisation receives events, and each event's delivery (re-exported by
`contracts.models`, which Django reads)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class WebhookEndpoint(models.Model):
    """Where an organisation receives signed events; the secret is shown once, when it is generated."""

    organisation = models.OneToOneField("contracts.Organisation", on_delete=models.CASCADE, related_name="webhook")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=1000)  # `whsec_` + base64 of the key (Standard Webhooks)
    # The secret before the last change, still signing beside it until `previous_secret_until` (a rotation).
    previous_secret = models.CharField(max_length=1000, blank=True, default="")
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    active = models.BooleanField(default=True)
    # Also send `result.provisional` (the rules' result, before the model's answers); `result.final` always.
    provisional_events = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"webhook of {self.organisation_id} -> {self.url}"


class DeliveryState(models.TextChoices):
    PENDING = "pending", "Pending"
    DELIVERED = "delivered", "Delivered"
    FAILED = "failed", "Failed"


class WebhookDelivery(models.Model):
    """One event for one endpoint, with its delivery log; `event_key` makes each event unique per endpoint."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    organisation = models.ForeignKey(
        "contracts.Organisation", on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    event = models.CharField(max_length=64)
    event_key = models.CharField(max_length=200)
    payload = models.JSONField()
    state = models.CharField(max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    locked_until = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["endpoint", "event_key"], name="one_delivery_per_event")]
        indexes = [models.Index(fields=["state", "next_attempt_at"])]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.event} {self.id} ({self.state})"
