"""Django admin registrations for operators."""

from __future__ import annotations

from django.contrib import admin
from django.db import models

from contracts.hotline.deadlines import calendar_admin  # noqa: F401  (registers the calendar years' admin)
from contracts.hotline.departments_admin import seed_ticket_departments
from contracts.learned.admin import organisations_retrain_now, reviewer_example_counts
from contracts.legal.playbooks_admin import seed_contract_playbooks
from contracts.models import (
    ApiKey,
    AuditEvent,
    Document,
    FindingDecision,
    Job,
    Membership,
    Organisation,
    Result,
    ReviewTask,
    ServiceLevel,
    TicketDeadline,
    WebhookDelivery,
    WebhookEndpoint,
)


@admin.register(Organisation)
class OrganisationAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created_at", "reviewer_examples"]
    actions = [seed_ticket_departments, seed_contract_playbooks, organisations_retrain_now]

    @admin.display(description="reviewer examples")
    def reviewer_examples(self, organisation: Organisation) -> str:
        return reviewer_example_counts(organisation)


admin.site.register(Membership)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "organisation", "prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "key_hash", "last_used_at"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["id", "organisation", "kind", "source", "created_at"]
    list_filter = ["kind", "source"]


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ["id", "document", "state", "attempts", "created_at", "finished_at"]
    list_filter = ["state"]


admin.site.register(Result)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "organisation", "action", "object_type", "object_id"]

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(ReviewTask)
class ReviewTaskAdmin(admin.ModelAdmin):
    list_display = ["id", "organisation", "state", "priority", "claimed_by", "created_at"]
    list_filter = ["state"]


admin.site.register(FindingDecision)


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    list_display = ["organisation", "url", "active", "updated_at"]
    # Neither signing secret is shown: the old one still signs during a rotation's overlap.
    exclude = ["secret", "previous_secret"]
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}  # webhooks go to https:// only


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "organisation", "event", "state", "attempts", "last_status_code", "created_at"]
    list_filter = ["state"]


@admin.register(ServiceLevel)
class ServiceLevelAdmin(admin.ModelAdmin):
    """An organisation's own time limit per tier (the pack `ticket_service_levels.json` says which tickets fall in
    which tier); saved limits apply to tickets whose result is stored from then on."""

    list_display = ["organisation", "tier", "limit", "unit"]
    list_filter = ["tier"]


@admin.register(TicketDeadline)
class TicketDeadlineAdmin(admin.ModelAdmin):
    list_display = ["document", "organisation", "tier", "received_at", "due_at", "state", "progress"]
    list_filter = ["state", "progress", "tier"]
    readonly_fields = [field.name for field in TicketDeadline._meta.fields]
