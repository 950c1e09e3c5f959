"""Invitations: an organisation admin offers a role to an exact username or e-mail address; its invitee becomes a
member only by accepting. Every step is audited.

An admin can neither list the accounts on the system nor learn whether one exists: an invitation is recorded the
same way for a name nobody has, and it only reaches someone who signs in with that username or address.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from contracts.audit import audit_record
from contracts.models import Invitation, Membership, Organisation
from contracts.tenancy.memberships import MembershipError, role_checked
from contracts.tenancy.models import invitee_normalized

INVITATION_VALID_FOR = timedelta(days=7)
MAX_INVITEE_CHARS = 254


def _invitee_keys(user: Any) -> set[str]:
    """The invitees that name this account: its username and its e-mail address, as invitations store them."""
    keys = {invitee_normalized(user.get_username())}
    if getattr(user, "email", ""):
        keys.add(invitee_normalized(user.email))
    return keys


def _already_member(organisation: Organisation, invitee: str) -> bool:
    by_name = Q(user__username=invitee) | Q(user__email__iexact=invitee, user__email__contains="@")
    return Membership.objects.filter(by_name, organisation=organisation).exists()


def invitation_create(*, organisation: Organisation, admin_user: Any, invitee: str, role: str) -> Invitation:
    """Offer `role` to whoever has the exact username or e-mail address `invitee` (valid for a week; inviting
    again renews it); raise MembershipError for an invalid role, an empty invitee or someone already a member."""
    role_checked(role)
    name = invitee_normalized(invitee)
    if not name or len(name) > MAX_INVITEE_CHARS:
        raise MembershipError("invalid_invitee", _("Give a username or an e-mail address."))
    if _already_member(organisation, name):
        raise MembershipError("already_member", _("%(name)s is already a member.") % {"name": name})
    with transaction.atomic():
        invitation, _created = Invitation.objects.update_or_create(
            organisation=organisation,
            invitee=name,
            defaults={"role": role, "invited_by": admin_user, "expires_at": timezone.now() + INVITATION_VALID_FOR},
        )
        audit_record(
            organisation=organisation,
            action="membership.invited",
            obj=invitation,
            user=admin_user,
            after={"invitee": name, "role": role},
        )
    return invitation


def invitations_pending(*, organisation: Organisation) -> QuerySet[Invitation]:
    """The organisation's invitations not yet accepted, declined, withdrawn or expired, newest first."""
    return Invitation.objects.filter(organisation=organisation, expires_at__gt=timezone.now()).order_by("-created_at")


def invitations_for(*, user: Any) -> QuerySet[Invitation]:
    """The unexpired invitations that name this account (by username or e-mail address), with organisations."""
    pending = Invitation.objects.filter(invitee__in=_invitee_keys(user), expires_at__gt=timezone.now())
    return pending.select_related("organisation").order_by("-created_at")


def invitation_accept(*, invitation_id: Any, user: Any) -> Membership:
    """Join the organisation with the offered role; raise Invitation.DoesNotExist unless the invitation is this
    account's and unexpired."""
    with transaction.atomic():
        invitation = invitations_for(user=user).select_for_update(of=("self",)).get(pk=invitation_id)
        membership, created = Membership.objects.get_or_create(
            user=user, organisation=invitation.organisation, defaults={"role": invitation.role}
        )
        if created:
            audit_record(
                organisation=invitation.organisation,
                action="membership.added",
                obj=membership,
                user=user,
                after={"user": user.get_username(), "role": invitation.role, "invitee": invitation.invitee},
            )
        invitation.delete()
    return membership


def invitation_decline(*, invitation_id: Any, user: Any) -> None:
    """Turn the invitation down; raise Invitation.DoesNotExist unless it is this account's."""
    with transaction.atomic():
        invitation = invitations_for(user=user).select_for_update(of=("self",)).get(pk=invitation_id)
        _ended(invitation, "membership.invitation_declined", user)


def invitation_withdraw(*, organisation: Organisation, admin_user: Any, invitation_id: Any) -> None:
    """An admin takes an invitation back; raise Invitation.DoesNotExist for another organisation's."""
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation_id, organisation=organisation)
        _ended(invitation, "membership.invitation_withdrawn", admin_user)


def _ended(invitation: Invitation, action: str, user: Any) -> None:
    audit_record(
        organisation=invitation.organisation,
        action=action,
        obj=invitation,
        user=user,
        before={"invitee": invitation.invitee, "role": invitation.role},
    )
    invitation.delete()
