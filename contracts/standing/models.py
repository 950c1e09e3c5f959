"""The model's answers as the standing policy counts them, and its probe counter (re-exported by
`contracts.models`, which Django reads)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class LLMAnswer(models.Model):
    """One answer the model gave to one of the cascade's questions about one document: one row inserted per
    answer (inserts never contend), its agreement set again when a reviewer finalises the document."""

    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    job = models.ForeignKey("contracts.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    task = models.CharField(max_length=32)  # the cascade's question: gate, clauses, ticket_category, draft
    model = models.CharField(max_length=200)
    valid = models.BooleanField()  # parsed against the question's schema
    grounded = models.BooleanField()  # every quote it gave stands in the text
    agreed = models.BooleanField(null=True)  # with the final result (reviewed, else merged); None: cannot tell
    # What agreement is judged on: the labels the model named, and the scope it was asked about.
    named = models.JSONField(default=list, blank=True)
    scope = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # The window: the newest answers of one organisation's question to one model.
            models.Index(fields=["organisation", "task", "model", "-id"], name="llm_answer_window"),
        ]

    def __str__(self) -> str:
        return f"{self.task} answer of {self.model} (job {self.job_id})"


class LLMProbe(models.Model):
    """Questions skipped by policy since the model was last probed, per organisation, question and model: the
    probe is claimed by one conditional UPDATE, so two workers never both take it."""

    organisation = models.ForeignKey("contracts.Organisation", on_delete=models.CASCADE, related_name="+")
    task = models.CharField(max_length=32)
    model = models.CharField(max_length=200)
    skipped = models.PositiveIntegerField(default=0)
    probed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organisation", "task", "model"], name="one_llm_probe_per_task"),
        ]

    def __str__(self) -> str:
        return f"{self.task} of {self.model}: {self.skipped} skipped"
