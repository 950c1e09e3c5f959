"""Who is asking: the portal user's current organisation and role, for views, templates and the switcher."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from contracts.api.auth import request_organisation
from contracts.models import Membership, Organisation, Role
from contracts.tenancy.invitations import invitations_for
from contracts.tenancy.memberships import REVIEWER_ROLES, reviewer_role
from contracts.tenancy.personal_data import role_sees_personal_data

View = Callable[..., HttpResponse]


def portal_organisation(request: HttpRequest) -> Organisation | None:
    """Return the organisation the signed-in user acts for (session choice, else their first membership)."""
    if not request.user.is_authenticated:
        return None
    return request_organisation(request)


def portal_role(request: HttpRequest) -> str | None:
    """Return the user's role in the current organisation, cached on the request."""
    if not hasattr(request, "_docgate_role"):
        organisation = portal_organisation(request)
        role = reviewer_role(user=request.user, organisation=organisation) if organisation else None
        request._docgate_role = role  # type: ignore[attr-defined]
    return request._docgate_role  # type: ignore[attr-defined]


def may_see_pii(request: HttpRequest) -> bool:
    """Whether the user sees personal data in full by their role (reviewers and admins do, submitters see it
    masked): the API's policy (`contracts.tenancy.personal_data`)."""
    return role_sees_personal_data(portal_role(request))


def _requires(roles: tuple[str, ...] | None) -> Callable[[View], View]:
    def decorator(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            organisation = portal_organisation(request)
            if organisation is None:
                return render(request, "frontend/no_organisation.html", status=403)
            if roles is not None and portal_role(request) not in roles:
                return render(request, "frontend/forbidden.html", status=403)
            request.organisation = organisation  # type: ignore[attr-defined]
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


member_required = _requires(None)
reviewer_required = _requires(tuple(REVIEWER_ROLES))
admin_required = _requires((Role.ADMIN,))


def portal(request: HttpRequest) -> dict[str, Any]:
    """Context processor: the current organisation, role, the user's other organisations and invitations."""
    if not request.user.is_authenticated:
        return {}
    memberships = list(Membership.objects.filter(user=request.user).select_related("organisation"))
    organisation = portal_organisation(request)
    role = portal_role(request)
    return {
        "current_organisation": organisation,
        "current_role": role,
        "is_reviewer": role in REVIEWER_ROLES,
        "show_pii": role_sees_personal_data(role),
        "is_org_admin": role == Role.ADMIN,
        "memberships": memberships,
        "invitation_count": invitations_for(user=request.user).count(),
    }


def org_of(request: HttpRequest) -> Organisation:
    """The organisation a decorated view acts for (set by the access decorators)."""
    organisation: Organisation = request.organisation  # type: ignore[attr-defined]
    return organisation
