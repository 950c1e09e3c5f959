"""The Django admin of organisations' contract playbooks: edits go through the service (validated, versioned,
audited), each playbook shows its history, and an organisation without one can be seeded from DocGate's default."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.utils.html import format_html_join

from contracts.legal.playbooks import ContractPlaybook, playbook_delete, playbook_history, playbook_save, playbook_seed
from contracts.models import Organisation


@admin.register(ContractPlaybook)
class ContractPlaybookAdmin(admin.ModelAdmin):
    list_display = ["organisation", "city", "version", "updated_at", "updated_by"]
    search_fields = ["organisation__name", "city"]
    readonly_fields = ["version", "updated_at", "updated_by", "history"]

    @admin.display(description="history")
    def history(self, row: ContractPlaybook) -> str:
        """Every version of the playbook, from the audit log, with what each one changed."""
        if row.pk is None:
            return "-"
        return format_html_join(
            "",
            "<div>v{} {} {}: {}</div>",
            ((h["version"], h["at"], h["by"], "、".join(h["changed"]) or "—") for h in playbook_history(row)),
        )

    def save_model(self, request: Any, obj: ContractPlaybook, form: Any, change: bool) -> None:
        playbook_save(row=obj, user=request.user)

    def delete_model(self, request: Any, obj: ContractPlaybook) -> None:
        playbook_delete(row=obj, user=request.user)

    def delete_queryset(self, request: Any, queryset: QuerySet[ContractPlaybook]) -> None:
        for row in queryset:
            playbook_delete(row=row, user=request.user)


@admin.action(description="Seed contract playbooks from DocGate's default (organisations without one)")
def seed_contract_playbooks(modeladmin: Any, request: Any, queryset: QuerySet[Organisation]) -> None:
    """An admin action on organisations: copy the default playbook into each one that has none."""
    created = sum(playbook_seed(organisation=organisation, user=request.user) for organisation in queryset)
    modeladmin.message_user(request, f"{created} contract playbooks created", messages.SUCCESS)
