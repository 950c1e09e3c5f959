"""API authentication: `Authorization: Api-Key …` for systems, sessions for the portal; org scoping."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request

from contracts.models import ApiKey, Membership, Organisation, api_key_hash

# Writing last_used_at on every request would turn each read into a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(seconds=60)


@dataclass
class ApiKeyPrincipal:
    """The caller behind an API key: acts for exactly one organisation."""

    api_key: ApiKey

    is_authenticated = True
    is_anonymous = False

    @property
    def organisation(self) -> Organisation:
        return self.api_key.organisation

    @property
    def pk(self) -> None:
        return None


class ApiKeyAuthentication(BaseAuthentication):
    """Authenticate `Authorization: Api-Key dg_xxxxxxxx.secret`; a revoked or unknown key is a 401."""

    keyword = "Api-Key"

    def authenticate(self, request: Request) -> tuple[ApiKeyPrincipal, ApiKey] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        keyword, _space, raw = header.partition(" ")
        if keyword.lower() != self.keyword.lower():
            return None
        raw = raw.strip()
        if not raw:
            raise exceptions.AuthenticationFailed(_("The Api-Key header has no key."))
        key = ApiKey.objects.select_related("organisation").filter(key_hash=api_key_hash(raw)).first()
        if key is None:
            raise exceptions.AuthenticationFailed(_("Unknown API key."))
        if key.revoked_at is not None:
            raise exceptions.AuthenticationFailed(_("This API key has been revoked."))
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_RESOLUTION:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        return ApiKeyPrincipal(key), key

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def request_organisation(request: Any) -> Organisation | None:
    """Return the organisation a request acts for: the key's, or the session user's chosen membership."""
    cached = getattr(request, "_docgate_organisation", None)
    if cached is not None:
        return cached
    user = request.user
    organisation: Organisation | None = None
    if isinstance(user, ApiKeyPrincipal):
        organisation = user.organisation
    elif user is not None and user.is_authenticated:
        memberships = Membership.objects.filter(user=user).select_related("organisation")
        wanted = request.META.get("HTTP_X_ORGANISATION") or request.session.get("organisation_slug")
        if wanted:
            memberships = memberships.filter(organisation__slug=wanted)
        membership = memberships.order_by("created_at").first()
        organisation = membership.organisation if membership else None
    request._docgate_organisation = organisation
    return organisation


def request_api_key(request: Any) -> ApiKey | None:
    """Return the API key a request was made with, if any."""
    return request.user.api_key if isinstance(request.user, ApiKeyPrincipal) else None


def request_user(request: Any) -> Any:
    """Return the Django user behind a session request, or None for API-key callers."""
    user = request.user
    return None if isinstance(user, ApiKeyPrincipal) or not getattr(user, "is_authenticated", False) else user
