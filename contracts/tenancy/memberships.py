"""Organisation membership: an admin changes members' roles and removes members (people join by accepting an
invitation: `contracts.tenancy.invitations`); every change audited.

An organisation always keeps at least one admin, so nobody can lock it out of its own settings.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.models import Membership, Organisation, Role
from contracts.refusals import Refused

# Who may review an organisation's documents (and see what they hold unmasked).
REVIEWER_ROLES = (Role.REVIEWER, Role.ADMIN)


class MembershipError(Refused):
    """A membership change DocGate refuses; carries a stable code and a message for the admin."""


def role_checked(role: str) -> str:
    """Return the role; raise MembershipError for one DocGate does not have."""
    if role not in Role.values:
        raise MembershipError("invalid_role", _("role must be one of %(values)s.") % {"values": ", ".join(Role.values)})
    return role


def _keeps_an_admin(organisation: Organisation, membership: Membership) -> None:
    """Refuse a change that would leave the organisation without an admin (rows locked while deciding)."""
    admins = Membership.objects.select_for_update().filter(organisation=organisation, role=Role.ADMIN)
    if membership.role == Role.ADMIN and not admins.exclude(pk=membership.pk).exists():
        raise MembershipError("last_admin", _("The organisation needs at least one admin; appoint another first."))


def membership_role_change(
    *, organisation: Organisation, admin_user: Any, membership_id: int | str, role: str
) -> Membership:
    """Give a member another role; the last admin cannot be demoted."""
    role_checked(role)
    with transaction.atomic():
        membership = (
            Membership.objects.select_for_update()
            .select_related("user")
            .get(pk=membership_id, organisation=organisation)
        )
        if membership.role == role:
            return membership
        if role != Role.ADMIN:
            _keeps_an_admin(organisation, membership)
        before = membership.role
        membership.role = role
        membership.save(update_fields=["role"])
        audit_record(
            organisation=organisation,
            action="membership.role_changed",
            obj=membership,
            user=admin_user,
            before={"user": membership.user.get_username(), "role": before},
            after={"user": membership.user.get_username(), "role": role},
        )
    return membership


def membership_remove(*, organisation: Organisation, admin_user: Any, membership_id: int | str) -> None:
    """Remove a member from the organisation; the last admin cannot be removed."""
    with transaction.atomic():
        membership = (
            Membership.objects.select_for_update()
            .select_related("user")
            .get(pk=membership_id, organisation=organisation)
        )
        _keeps_an_admin(organisation, membership)
        audit_record(
            organisation=organisation,
            action="membership.removed",
            obj=membership,
            user=admin_user,
            before={"user": membership.user.get_username(), "role": membership.role},
        )
        membership.delete()


def reviewer_role(*, user: Any, organisation: Organisation) -> str | None:
    """Return the user's role in the organisation, or None when they are not a member."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    role = Membership.objects.filter(user=user, organisation=organisation).values_list("role", flat=True).first()
    return str(role) if role is not None else None
