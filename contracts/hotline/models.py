"""The hotline desk's models: repeat cases (重复件) and the stored signatures their look-up uses.

A ticket the pipeline has read belongs to one case (`CaseTicket`): a repeat joins the case of the earlier ticket it
repeats, any other ticket opens a case of its own. Reviewers merge and split cases (`contracts.hotline.cases`).
`TicketSignature` keeps each ticket's MinHash values, places and caller digest; `TicketBand` one indexed row per LSH
band key (`rules.tickets.repeats`), so finding the candidates of a new ticket is one index range per band whatever
the history (PostgreSQL and SQLite alike). Registered through `contracts.models`; foreign keys are named by string so
that this module imports no shared model module.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone


class CaseJoin(models.TextChoices):
    FIRST = "first", "First ticket of its case"
    REPEAT = "repeat", "Repeat found by DocGate"
    REVIEWER = "reviewer", "Moved by a reviewer"


class Case(models.Model):
    """One complaint as dispatchers track it: the tickets that repeat it, within one organisation."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="cases")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    # A case merged into another keeps its id (results name it) and points to the case its tickets went to.
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        app_label = "contracts"
        indexes = [models.Index(fields=["organisation", "-updated_at"], name="case_org_recent")]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return f"case {self.id}"


class CaseTicket(models.Model):
    """A ticket's membership of its case: how it joined and, for a repeat, the evidence."""

    document = models.OneToOneField(
        "contracts.Document", on_delete=models.CASCADE, primary_key=True, related_name="case_ticket"
    )
    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="tickets")
    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    joined_by = models.CharField(max_length=16, choices=CaseJoin.choices, default=CaseJoin.FIRST)
    joined_at = models.DateTimeField(default=timezone.now)
    repeats = models.ForeignKey(  # the earlier ticket this one was found to repeat
        "contracts.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    evidence = models.JSONField(default=dict, blank=True)

    class Meta:
        app_label = "contracts"

    def __str__(self) -> str:
        return f"ticket {self.document_id} in case {self.case_id}"


class TicketSignature(models.Model):
    """What the repeat look-up compares: MinHash values, places and a caller digest, at the ticket's time."""

    document = models.OneToOneField(
        "contracts.Document", on_delete=models.CASCADE, primary_key=True, related_name="ticket_signature"
    )
    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()  # the document's
    minhash = models.BinaryField()
    places = models.JSONField(default=list, blank=True)
    caller = models.CharField(max_length=32, blank=True)

    class Meta:
        app_label = "contracts"

    def __str__(self) -> str:
        return f"signature of {self.document_id}"


class TicketBand(models.Model):
    """One LSH band key of a ticket's signature: the look-up reads (organisation, key) ranges, newest window."""

    id = models.BigAutoField(primary_key=True)
    organisation = models.ForeignKey(
        "contracts.Organisation", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.BigIntegerField()
    document = models.ForeignKey("contracts.Document", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()  # the document's

    class Meta:
        app_label = "contracts"
        indexes = [models.Index(fields=["organisation", "key", "created_at"], name="ticket_band_lookup")]

    def __str__(self) -> str:
        return f"band {self.key} of {self.document_id}"
