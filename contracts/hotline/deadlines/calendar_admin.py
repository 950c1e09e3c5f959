"""The Django admin of organisations' holiday calendar years: edits go through the service (validated, versioned,
audited), each row shows its history, and a year entered for one organisation can be copied to all."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.utils.html import format_html_join

from contracts.hotline.deadlines.calendar import AUDIT_CHANGED, WorkCalendarYear, calendar_years_load
from contracts.models import Organisation
from contracts.versioned_data import version_events, versioned_save


@admin.register(WorkCalendarYear)
class WorkCalendarYearAdmin(admin.ModelAdmin):
    list_display = ["organisation", "year", "status", "source", "version", "updated_at", "updated_by"]
    list_filter = ["year", "status", "organisation"]
    readonly_fields = ["version", "updated_at", "updated_by", "history"]
    actions = ["copy_to_every_organisation"]

    @admin.display(description="history")
    def history(self, row: WorkCalendarYear) -> str:
        """Every version of the row, from the audit log."""
        if row.pk is None:
            return "-"
        shown = []
        for event in version_events(row):
            after = event.after or {}
            at = event.created_at.isoformat(timespec="seconds")
            shown.append((after.get("version"), at, event.actor_user or "", after.get("status")))
        return format_html_join("", "<div>v{} {} {}: {}</div>", shown)

    def save_model(self, request: Any, obj: WorkCalendarYear, form: Any, change: bool) -> None:
        versioned_save(obj, user=request.user, action=AUDIT_CHANGED)

    @admin.action(description="Copy the selected years to every organisation (replacing theirs)")
    def copy_to_every_organisation(self, request: Any, queryset: QuerySet[WorkCalendarYear]) -> None:
        """Load the selected years into every organisation, as `manage.py work_calendar load` does."""
        years = {str(row.year): _entry(row) for row in queryset}
        written = calendar_years_load(
            organisations=Organisation.objects.all(), data={"years": years}, user=request.user
        )
        self.message_user(request, f"{written} calendar years written", messages.SUCCESS)


def _entry(row: WorkCalendarYear) -> dict[str, Any]:
    return {"status": row.status, "source": row.source, "holidays": row.holidays, "workdays": row.workdays}
