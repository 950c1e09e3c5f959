"""An organisation's contract playbook: organisation data, edited in the Django admin, versioned (each save counts
the version up; every change is in the append-only audit log with before and after).

An organisation without a row is reviewed by DocGate's default playbook (`rules/packs/playbook_default.json`);
seeding copies the default's rules in as its first version, to be edited from there.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from contracts.models import Organisation
from contracts.versioned_data import VersionedData, version_events, versioned_delete, versioned_save
from rules.playbook import Playbook, PlaybookError, default_rules_data, load_default_playbook, playbook_from_data

AUDIT_CHANGED, AUDIT_DELETED = "contract_playbook.changed", "contract_playbook.deleted"
ORGANISATION_PACK = "playbook.organisation"


class ContractPlaybook(VersionedData):
    """An organisation's contract policy: its city, the local minimum wage and its playbook rules (JSON)."""

    organisation = models.OneToOneField(Organisation, on_delete=models.CASCADE, related_name="contract_playbook")
    city = models.CharField(
        max_length=50, blank=True, default="", help_text="the organisation's city: disputes should be heard there"
    )
    minimum_wage = models.DecimalField(
        max_digits=10,
        decimal_places=2,
        null=True,
        blank=True,
        help_text="local monthly minimum wage (劳动合同法第20条)",
    )
    rules = models.JSONField(
        default=default_rules_data, help_text="playbook rules (see rules/packs/playbook_default.json)"
    )

    class Meta:
        app_label = "contracts"

    def __str__(self) -> str:
        return f"{self.organisation} playbook v{self.version}"

    def clean(self) -> None:
        """Refuse rules the review could not read, naming the rule and the reason."""
        try:
            self.playbook()
        except PlaybookError as error:
            raise ValidationError({"rules": str(error)}) from None

    def playbook(self) -> Playbook:
        """This version as the rules read it."""
        return playbook_from_data(
            self.rules,
            pack=f"{ORGANISATION_PACK}:{self.organisation.slug}",
            version=f"v{self.version}",
            city=self.city,
            minimum_wage=self.minimum_wage,
        )

    def snapshot(self) -> dict[str, Any]:
        """What the audit log keeps of a version."""
        wage = None if self.minimum_wage is None else str(self.minimum_wage)
        return {"city": self.city, "minimum_wage": wage, "rules": self.rules, "version": self.version}


def contract_playbook(organisation_slug: str) -> Playbook:
    """The playbook a contract of the organisation is reviewed by (DocGate's default when it has none)."""
    if not organisation_slug:
        return load_default_playbook()  # an analysis outside any organisation reads no database
    row = ContractPlaybook.objects.select_related("organisation").filter(organisation__slug=organisation_slug).first()
    return load_default_playbook() if row is None else row.playbook()


def playbook_save(*, row: ContractPlaybook, user: Any = None) -> ContractPlaybook:
    """Create or change the playbook: validated, its version counted up on a change, the change audited."""
    return versioned_save(row, user=user, action=AUDIT_CHANGED)


def playbook_delete(*, row: ContractPlaybook, user: Any = None) -> None:
    """Delete the playbook (contracts fall back to the default), audited."""
    versioned_delete(row, user=user, action=AUDIT_DELETED)


def playbook_seed(*, organisation: Organisation, user: Any = None) -> bool:
    """Copy the default playbook into an organisation that has none; whether one was created."""
    with transaction.atomic():
        Organisation.objects.select_for_update().get(pk=organisation.pk)  # one seeding at a time
        if ContractPlaybook.objects.filter(organisation=organisation).exists():
            return False
        default = load_default_playbook()
        row = ContractPlaybook(organisation=organisation, rules=default_rules_data(), city=default.city)
        playbook_save(row=row, user=user)
        return True


def playbook_history(row: ContractPlaybook) -> list[dict[str, Any]]:
    """Every recorded version of the playbook, oldest first: when, who, and what changed in it."""
    return [
        {
            "at": event.created_at.isoformat(timespec="seconds"),
            "by": event.actor_user.get_username() if event.actor_user else event.actor_system or "",
            "action": event.action,
            "version": (event.after or event.before or {}).get("version"),
            "changed": _changed(event.before or {}, event.after or {}),
        }
        for event in version_events(row)
    ]


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The settings and rule ids a version changed (rules added, removed or edited)."""
    changed = [key for key in ("city", "minimum_wage") if before.get(key) != after.get(key)]
    old = {r.get("id"): r for r in before.get("rules") or [] if isinstance(r, dict)}
    new = {r.get("id"): r for r in after.get("rules") or [] if isinstance(r, dict)}
    changed += sorted(str(rule_id) for rule_id in old.keys() | new.keys() if old.get(rule_id) != new.get(rule_id))
    return changed
