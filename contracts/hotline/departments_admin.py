"""The Django admin of an organisation's ticket departments: edits go through the service (validated, versioned,
audited), each row shows its history, and an organisation without rows can be seeded from DocGate's defaults."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.utils.html import format_html_join

from contracts.hotline.departments import (
    TicketDepartment,
    department_delete,
    department_history,
    department_save,
    departments_seed,
)
from contracts.models import Organisation


@admin.register(TicketDepartment)
class TicketDepartmentAdmin(admin.ModelAdmin):
    list_display = ["organisation", "level1", "level2", "department", "version", "updated_at", "updated_by"]
    list_filter = ["organisation", "level1"]
    search_fields = ["department", "level1", "level2"]
    readonly_fields = ["version", "updated_at", "updated_by", "history"]

    @admin.display(description="history")
    def history(self, row: TicketDepartment) -> str:
        """Every version of the row, from the audit log."""
        if row.pk is None:
            return "-"
        return format_html_join(
            "",
            "<div>v{} {} {}: {} → {}</div>",
            ((h["version"], h["at"], h["by"], h["before"] or "—", h["after"] or "—") for h in department_history(row)),
        )

    def save_model(self, request: Any, obj: TicketDepartment, form: Any, change: bool) -> None:
        department_save(row=obj, user=request.user)

    def delete_model(self, request: Any, obj: TicketDepartment) -> None:
        department_delete(row=obj, user=request.user)

    def delete_queryset(self, request: Any, queryset: QuerySet[TicketDepartment]) -> None:
        for row in queryset:
            department_delete(row=row, user=request.user)


@admin.action(description="Seed ticket departments from DocGate's defaults (organisations without any)")
def seed_ticket_departments(modeladmin: Any, request: Any, queryset: QuerySet[Organisation]) -> None:
    """An admin action on organisations: copy the default departments into each one that has none."""
    created = sum(departments_seed(organisation=organisation, user=request.user) for organisation in queryset)
    modeladmin.message_user(request, f"{created} department rows created", messages.SUCCESS)
