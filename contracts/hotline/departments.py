"""The departments an organisation routes its ticket categories to: organisation data, edited in the Django admin,
versioned (each row counts its changes; every change is in the append-only audit log with before and after).

An organisation without rows routes by DocGate's level-1/2 defaults (the taxonomy pack); seeding copies those
defaults in as its first version, to be edited from there.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from contracts.models import Organisation
from contracts.versioned_data import VersionedData, version_events, versioned_delete, versioned_save
from rules.tickets.routing import DepartmentTable
from rules.tickets.taxonomy import load_taxonomy

AUDIT_CHANGED, AUDIT_DELETED = "ticket_department.changed", "ticket_department.deleted"


class TicketDepartment(VersionedData):
    """Where an organisation's tickets of a category go: level-1 (level2 blank: its default) or one level-2 path."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="ticket_departments")
    level1 = models.CharField(max_length=50)
    level2 = models.CharField(max_length=50, blank=True, default="", help_text="blank: the whole level-1 category")
    department = models.CharField(max_length=200)

    class Meta:
        app_label = "contracts"
        constraints = [
            models.UniqueConstraint(fields=["organisation", "level1", "level2"], name="one_department_per_path")
        ]
        ordering = ["organisation", "level1", "level2"]

    def __str__(self) -> str:
        return f"{self.level1}/{self.level2 or '*'} → {self.department}"

    def clean(self) -> None:
        """Refuse a path outside the ticket taxonomy and an empty department."""
        taxonomy = load_taxonomy()
        if not taxonomy.has_path(self.level1, self.level2 or None):
            raise ValidationError({"level2" if self.level2 else "level1": "not a category of the ticket taxonomy"})
        if not self.department.strip():
            raise ValidationError({"department": "name the department"})

    def snapshot(self) -> dict[str, Any]:
        """What the audit log keeps of a version."""
        return {"level1": self.level1, "level2": self.level2, "department": self.department, "version": self.version}


def department_table(organisation_slug: str) -> DepartmentTable:
    """The organisation's departments as the rules read them (DocGate's defaults for what it has no row for)."""
    rows = TicketDepartment.objects.filter(organisation__slug=organisation_slug) if organisation_slug else []
    return DepartmentTable(load_taxonomy(), {(row.level1, row.level2): (row.department, row.version) for row in rows})


def department_save(*, row: TicketDepartment, user: Any = None) -> TicketDepartment:
    """Create or change a row: validated, its version counted up on a change, the change audited."""
    return versioned_save(row, user=user, action=AUDIT_CHANGED)


def department_delete(*, row: TicketDepartment, user: Any = None) -> None:
    """Delete a row (its category falls back to the level-1 row or the default), audited."""
    versioned_delete(row, user=user, action=AUDIT_DELETED)


def departments_seed(*, organisation: Organisation, user: Any = None) -> int:
    """Copy DocGate's level-1 and level-2 defaults into an organisation that has no rows; the rows created."""
    with transaction.atomic():
        Organisation.objects.select_for_update().get(pk=organisation.pk)  # one seeding at a time
        if TicketDepartment.objects.filter(organisation=organisation).exists():
            return 0
        created = 0
        for category in load_taxonomy().categories:
            paths = [("", category.department)] + [(s.name, s.department) for s in category.level2 if s.department]
            for level2, department in paths:
                row = TicketDepartment(organisation=organisation, level1=category.name, level2=level2 or "")
                row.department = department or category.department
                department_save(row=row, user=user)
                created += 1
        return created


def department_history(row: TicketDepartment) -> list[dict[str, Any]]:
    """Every recorded version of a row, oldest first: when, who, and the department before and after."""
    return [
        {
            "at": event.created_at.isoformat(timespec="seconds"),
            "by": event.actor_user.get_username() if event.actor_user else event.actor_system or "",
            "action": event.action,
            "before": (event.before or {}).get("department"),
            "after": (event.after or {}).get("department"),
            "version": (event.after or event.before or {}).get("version"),
        }
        for event in version_events(row)
    ]
