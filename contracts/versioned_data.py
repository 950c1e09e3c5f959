"""Versioned organisation data (a desk's department table, a playbook): each save validated, its version counted
up, and every change kept in the append-only audit log with before and after."""

from __future__ import annotations

from typing import Any, TypeVar

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from contracts.audit import audit_record
from contracts.models import AuditEvent, Organisation


class VersionedData(models.Model):
    """A row of an organisation's data: its version, when and by whom it last changed, what the audit keeps."""

    version = models.PositiveIntegerField(default=1, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    organisation: models.ForeignKey[Organisation, Organisation]  # each concrete model declares its own
    organisation_id: int

    class Meta:
        abstract = True

    def snapshot(self) -> dict[str, Any]:
        """What the audit log keeps of a version."""
        raise NotImplementedError


Row = TypeVar("Row", bound=VersionedData)


def versioned_save(row: Row, *, user: Any, action: str) -> Row:
    """Create or change a row: validated, its version counted up on a change, the change audited as `action`."""
    row.full_clean()
    with transaction.atomic():
        before = None
        if row.pk is not None:
            stored = type(row)._default_manager.select_for_update().get(pk=row.pk)
            before = stored.snapshot()
            row.version = stored.version + 1
        row.updated_at = timezone.now()
        row.updated_by = user if getattr(user, "is_authenticated", False) else None
        row.save()
        audit_record(
            organisation=row.organisation, action=action, obj=row, user=user, before=before, after=row.snapshot()
        )
    return row


def versioned_delete(row: VersionedData, *, user: Any, action: str) -> None:
    """Delete a row, its last version audited as `action`."""
    with transaction.atomic():
        audit_record(organisation=row.organisation, action=action, obj=row, user=user, before=row.snapshot())
        row.delete()


def version_events(row: VersionedData) -> models.QuerySet[AuditEvent]:
    """The audit events of a row, oldest first, with who made them."""
    return AuditEvent.objects.filter(
        organisation_id=row.organisation_id, object_type=row._meta.model_name, object_id=str(row.pk)
    ).select_related("actor_user")
