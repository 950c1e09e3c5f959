"""The Django admin of learning from reviewers: the examples counted per kind, each model version with its slice
evaluation, one-click rollback, and a retrain button on organisations."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet

from contracts.audit import audit_record
from contracts.broker import task_send
from contracts.learned.versions import ModelVersionError, model_rollback
from contracts.models import (
    LearnedModelVersion,
    ModelState,  # registered there with Django
    Organisation,
    ReviewerExample,
)

RETRAIN_TASK = "contracts.tasks.organisation_retrain_task"


def reviewer_example_counts(organisation: Organisation) -> str:
    """`kind: n` for each kind of example the organisation's reviewers left, most first."""
    counts = (
        ReviewerExample.objects.filter(organisation=organisation)
        .values("kind")
        .annotate(n=Count("id"))
        .order_by("-n", "kind")
    )
    return ", ".join(f"{row['kind']}: {row['n']}" for row in counts) or "—"


@admin.register(ReviewerExample)
class ReviewerExampleAdmin(admin.ModelAdmin):
    list_display = ["created_at", "organisation", "kind", "decision", "previous", "label", "document", "reviewer"]
    list_filter = ["kind", "decision", "organisation"]
    readonly_fields = [field.name for field in ReviewerExample._meta.fields]

    def changelist_view(self, request: Any, extra_context: dict[str, Any] | None = None) -> Any:
        """The list, titled with how many examples of each kind there are (per organisation when filtered)."""
        counts = self.get_queryset(request).values("kind").annotate(n=Count("id")).order_by("-n")
        title = "Reviewer examples — " + (", ".join(f"{row['kind']}: {row['n']}" for row in counts) or "none yet")
        return super().changelist_view(request, {**(extra_context or {}), "title": title})

    def has_add_permission(self, request: Any) -> bool:
        return False  # only a finalized review makes an example


@admin.action(description="Roll back: put back the version this one replaced")
def model_versions_roll_back(modeladmin: Any, request: Any, queryset: QuerySet[LearnedModelVersion]) -> None:
    """Roll back each selected active version (audited, by the signed-in operator)."""
    for row in queryset.filter(state=ModelState.ACTIVE):
        try:
            model_rollback(organisation=row.organisation, name=row.name, user=request.user)
        except ModelVersionError as exc:
            modeladmin.message_user(request, exc.message, messages.ERROR)
            continue
        modeladmin.message_user(request, f"{row.name}: {row.version} → {row.replaced or 'rules alone'}")


@admin.register(LearnedModelVersion)
class LearnedModelVersionAdmin(admin.ModelAdmin):
    list_display = ["created_at", "organisation", "name", "version", "state", "primary_scores", "reason"]
    list_filter = ["name", "state", "organisation"]
    readonly_fields = [field.name for field in LearnedModelVersion._meta.fields]
    actions = [model_versions_roll_back]

    @admin.display(description="slice: current → candidate")
    def primary_scores(self, row: LearnedModelVersion) -> str:
        metrics = row.metrics or {}
        primary = metrics.get("primary", "macro_f1")
        current, candidate = metrics.get("current") or {}, metrics.get("candidate") or {}
        if primary not in candidate:
            return "—"
        return f"{primary} {current.get(primary, '—')} → {candidate[primary]} (n={candidate.get('n', '?')})"

    def has_add_permission(self, request: Any) -> bool:
        return False


@admin.action(description="Retrain from reviewers' corrections (activated only when better)")
def organisations_retrain_now(modeladmin: Any, request: Any, queryset: QuerySet[Organisation]) -> None:
    """Queue a retraining of each selected organisation's models."""
    for organisation in queryset:
        audit_record(organisation=organisation, action="model.retrain_requested", obj=organisation, user=request.user)
        task_send(RETRAIN_TASK, str(organisation.pk))
    modeladmin.message_user(request, f"retraining queued for {queryset.count()} organisation(s)")
