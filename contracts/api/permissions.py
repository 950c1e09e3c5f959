"""Who may call the API: members of an organisation (an API key or a membership), its reviewers, its admins; and
whether the caller sees personal data in full."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework import exceptions
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from contracts.api.auth import request_api_key, request_organisation, request_user
from contracts.models import Role
from contracts.tenancy.memberships import REVIEWER_ROLES, reviewer_role
from contracts.tenancy.personal_data import caller_sees_personal_data


class IsOrganisationMember(BasePermission):
    """Allow callers who act for an organisation (an API key, or a user with a membership)."""

    message = _("You are not a member of any organisation.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.user is None or not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        return request_organisation(request) is not None


class IsOrganisationReviewer(BasePermission):
    """Allow signed-in users with one of `roles` in the organisation they act for; API keys never."""

    roles: tuple[str, ...] = REVIEWER_ROLES
    message = _("Only a signed-in reviewer of this organisation can do this.")

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.user is None or not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        user, organisation = request_user(request), request_organisation(request)
        if user is None or organisation is None:
            return False
        return reviewer_role(user=user, organisation=organisation) in self.roles


class IsOrganisationAdmin(IsOrganisationReviewer):
    roles = (Role.ADMIN,)
    message = _("Only a signed-in admin of this organisation can do this.")


def request_sees_personal_data(request: Any) -> bool:
    """Whether the caller sees personal data in full (`contracts.tenancy.personal_data`), cached on the request."""
    if not hasattr(request, "_docgate_sees_personal_data"):
        organisation = request_organisation(request)
        request._docgate_sees_personal_data = organisation is not None and caller_sees_personal_data(
            organisation=organisation, user=request_user(request), api_key=request_api_key(request)
        )
    return bool(request._docgate_sees_personal_data)


def context_sees_personal_data(context: Mapping[str, Any]) -> bool:
    """Whether the request a serializer's context names sees personal data in full; without one it does not."""
    request = context.get("request")
    return request is not None and request_sees_personal_data(request)
