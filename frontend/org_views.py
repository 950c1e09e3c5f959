"""Organisation admin: API keys (shown once), the webhook endpoint and its secret, members and their roles."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from contracts.audit import audit_record
from contracts.models import ApiKey, Invitation, Membership, Role, WebhookEndpoint
from contracts.tenancy.invitations import invitation_create, invitation_withdraw, invitations_pending
from contracts.tenancy.memberships import MembershipError, membership_remove, membership_role_change
from contracts.webhooks.endpoints import webhook_endpoint_configure
from contracts.webhooks.outbound import WebhookConfigError
from frontend.access import admin_required, org_of
from frontend.forms import ROLES, ApiKeyForm, MemberInviteForm, MemberRoleForm, WebhookForm

# A secret shown once travels from the POST to the next page in the session, and is removed when shown.
SHOWN_ONCE = "docgate_shown_once"


def _page(request: HttpRequest, *, key_form: ApiKeyForm, webhook_form: WebhookForm, status: int = 200) -> HttpResponse:
    organisation = org_of(request)
    context = {
        "keys": ApiKey.objects.filter(organisation=organisation).order_by("-created_at"),
        "endpoint": WebhookEndpoint.objects.filter(organisation=organisation).first(),
        "members": Membership.objects.filter(organisation=organisation)
        .select_related("user")
        .order_by("role", "user__username"),
        "invitations": invitations_pending(organisation=organisation),
        "member_form": MemberInviteForm(),
        "roles": ROLES,
        "key_form": key_form,
        "webhook_form": webhook_form,
        "shown_once": request.session.pop(SHOWN_ONCE, None),
    }
    return render(request, "frontend/org_admin.html", context, status=status)


@admin_required
def settings_page(request: HttpRequest) -> HttpResponse:
    endpoint = WebhookEndpoint.objects.filter(organisation=org_of(request)).first()
    initial = (
        {"url": endpoint.url, "active": endpoint.active, "provisional_events": endpoint.provisional_events}
        if endpoint
        else {"active": True}
    )
    return _page(request, key_form=ApiKeyForm(), webhook_form=WebhookForm(initial=initial))


@require_POST
@admin_required
def key_create(request: HttpRequest) -> HttpResponse:
    form = ApiKeyForm(request.POST)
    if not form.is_valid():
        return _page(request, key_form=form, webhook_form=WebhookForm(), status=400)
    key, raw = ApiKey.issue(organisation=org_of(request), name=form.cleaned_data["name"], created_by=request.user)
    audit_record(
        organisation=org_of(request),
        action="api_key.issued",
        obj=key,
        user=request.user,
        after={"name": key.name, "prefix": key.prefix},
    )
    request.session[SHOWN_ONCE] = {"kind": "api_key", "name": key.name, "secret": raw}
    return redirect("org_settings")


@require_POST
@admin_required
def key_revoke(request: HttpRequest, key_id: int) -> HttpResponse:
    key = get_object_or_404(ApiKey, pk=key_id, organisation=org_of(request))
    if ApiKey.objects.filter(pk=key.pk, revoked_at__isnull=True).update(revoked_at=timezone.now()):
        audit_record(
            organisation=org_of(request),
            action="api_key.revoked",
            obj=key,
            user=request.user,
            after={"prefix": key.prefix},
        )
        messages.success(request, _("The key was revoked."))
    return redirect("org_settings")


@require_POST
@admin_required
def webhook_save(request: HttpRequest) -> HttpResponse:
    form = WebhookForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            _endpoint, secret = webhook_endpoint_configure(
                organisation=org_of(request),
                user=request.user,
                url=data["url"],
                active=data["active"],
                rotate_secret=data["rotate_secret"],
                provisional_events=data["provisional_events"],
            )
        except WebhookConfigError as exc:
            form.add_error("url", str(exc))
        else:
            if secret:
                request.session[SHOWN_ONCE] = {"kind": "webhook_secret", "name": data["url"], "secret": secret}
            messages.success(request, _("Webhook saved."))
            return redirect("org_settings")
    return _page(request, key_form=ApiKeyForm(), webhook_form=form, status=400)


def _membership_errors(request: HttpRequest, form: MemberInviteForm | MemberRoleForm) -> None:
    messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))


@require_POST
@admin_required
def member_invite(request: HttpRequest) -> HttpResponse:
    """Invite an exact username or e-mail address; the answer reads the same whether or not such an account exists."""
    form = MemberInviteForm(request.POST)
    if not form.is_valid():
        _membership_errors(request, form)
        return redirect("org_settings")
    try:
        invitation = invitation_create(
            organisation=org_of(request),
            admin_user=request.user,
            invitee=form.cleaned_data["invitee"],
            role=form.cleaned_data["role"],
        )
    except MembershipError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("Invitation recorded for %(invitee)s: whoever signs in with that username or e-mail can accept it.")
            % {"invitee": invitation.invitee},
        )
    return redirect("org_settings")


@require_POST
@admin_required
def invitation_withdrawn(request: HttpRequest, invitation_id: str) -> HttpResponse:
    try:
        invitation_withdraw(organisation=org_of(request), admin_user=request.user, invitation_id=invitation_id)
    except Invitation.DoesNotExist as exc:
        raise Http404("no such invitation") from exc
    messages.success(request, _("The invitation was withdrawn."))
    return redirect("org_settings")


@require_POST
@admin_required
def member_role(request: HttpRequest, membership_id: int) -> HttpResponse:
    get_object_or_404(Membership, pk=membership_id, organisation=org_of(request))
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        _membership_errors(request, form)
        return redirect("org_settings")
    try:
        membership = membership_role_change(
            organisation=org_of(request),
            admin_user=request.user,
            membership_id=membership_id,
            role=form.cleaned_data["role"],
        )
    except MembershipError as exc:
        messages.error(request, exc.message)
        return redirect("org_settings")
    messages.success(request, _("Role saved."))
    if membership.user_id == request.user.pk and membership.role != Role.ADMIN:
        return redirect("home")  # an admin who stepped down no longer sees this page
    return redirect("org_settings")


@require_POST
@admin_required
def member_remove(request: HttpRequest, membership_id: int) -> HttpResponse:
    membership = get_object_or_404(Membership, pk=membership_id, organisation=org_of(request))
    leaving = membership.user_id == request.user.pk
    try:
        membership_remove(organisation=org_of(request), admin_user=request.user, membership_id=membership_id)
    except MembershipError as exc:
        messages.error(request, exc.message)
        return redirect("org_settings")
    messages.success(request, _("The member was removed."))
    return redirect("home" if leaving else "org_settings")
