"""The invitee's side of invitations: the ones that name the signed-in account, to accept or decline."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from contracts.models import Invitation
from contracts.tenancy.invitations import invitation_accept, invitation_decline, invitations_for


@require_GET
@login_required
def invitations(request: HttpRequest) -> HttpResponse:
    """The invitations to this account's username or e-mail address."""
    return render(request, "frontend/invitations.html", {"invitations": list(invitations_for(user=request.user))})


@require_POST
@login_required
def accept(request: HttpRequest, invitation_id: str) -> HttpResponse:
    """Join the inviting organisation and act for it from now on."""
    try:
        membership = invitation_accept(invitation_id=invitation_id, user=request.user)
    except Invitation.DoesNotExist as exc:
        raise Http404("no such invitation") from exc
    request.session["organisation_slug"] = membership.organisation.slug
    messages.success(request, _("You are now a member of %(org)s.") % {"org": membership.organisation.name})
    return redirect("jobs")


@require_POST
@login_required
def decline(request: HttpRequest, invitation_id: str) -> HttpResponse:
    try:
        invitation_decline(invitation_id=invitation_id, user=request.user)
    except Invitation.DoesNotExist as exc:
        raise Http404("no such invitation") from exc
    messages.success(request, _("The invitation was declined."))
    return redirect("invitations")
