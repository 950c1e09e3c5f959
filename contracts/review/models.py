"""What reviewers taught DocGate: each decision kept as a labelled example of the organisation's documents, and
each model version an organisation trained from them (with its slice evaluation). Registered through
`contracts.models`; foreign keys are named by string so that this module imports no shared model module."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ExampleKind(models.TextChoices):
    FINDING = "finding", "Finding approved, corrected or rejected"
    TICKET_CATEGORY = "ticket_category", "Ticket category"
    TICKET_DEPARTMENT = "ticket_department", "Ticket department"
    CLAUSE_ADDED = "clause_added", "Clause type added"
    CLAUSE_REMOVED = "clause_removed", "Clause type removed"
    GATE = "gate", "Gate outcome upheld or overruled"
    REPLY = "reply", "Reply edited"


class ReviewerExample(models.Model):
    """One reviewer decision as a labelled example: what the result said (`previous`), what the reviewer said
    (`label`), on which document, in which result version, by whom."""

    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey("contracts.Document", on_delete=models.CASCADE, related_name="reviewer_examples")
    # The version the reviewer judged and the reviewed version their decisions wrote.
    reviewed_result = models.ForeignKey("contracts.Result", on_delete=models.CASCADE, related_name="+")
    judged_version = models.PositiveIntegerField()
    # None: a decision taken outside any review task (a cell of the legal grid, `contracts.review.settled`).
    task = models.ForeignKey(
        "contracts.ReviewTask", null=True, blank=True, on_delete=models.CASCADE, related_name="examples"
    )
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=24, choices=ExampleKind.choices)
    decision = models.CharField(max_length=16)  # approve | correct | reject | added | removed | upheld | overruled
    finding_id = models.CharField(max_length=64, blank=True)
    finding_kind = models.CharField(max_length=24, blank=True)
    label = models.TextField(blank=True)  # what the reviewer settled on (blank: nothing, e.g. a rejected finding)
    previous = models.TextField(blank=True)  # what the result said before
    detail = models.JSONField(default=dict, blank=True)  # the finding as judged, the gate's risk, …
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "contracts"
        indexes = [models.Index(fields=["organisation", "kind", "created_at"], name="example_org_kind")]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.decision} {self.previous!r} → {self.label!r}"


class ModelState(models.TextChoices):
    ACTIVE = "active", "Active"
    RETIRED = "retired", "Retired (a later version or a rollback replaced it)"
    REJECTED = "rejected", "Rejected (worse on the held-back slice)"
    FAILED = "failed", "Failed to train"


class LearnedModelVersion(models.Model):
    """One version of an organisation's model of `name` (tickets, clauses, safety_thresholds): its slice
    evaluation against the version in use then, and whether it was activated."""

    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=32)
    version = models.CharField(max_length=80)
    state = models.CharField(max_length=16, choices=ModelState.choices)
    replaced = models.CharField(max_length=80, blank=True)  # the version current when this one was judged
    reason = models.TextField(blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    trained_on = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        app_label = "contracts"
        constraints = [
            models.UniqueConstraint(fields=["organisation", "name", "version"], name="one_row_per_model_version")
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.name} {self.version} ({self.state})"
