"""The organisation's webhook endpoint: where results are sent, and the secret that signs them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from contracts.audit import audit_record
from contracts.models import Organisation, WebhookEndpoint
from contracts.webhooks.outbound import webhook_url_check
from contracts.webhooks.signing import webhook_secret_checked, webhook_secret_new


def webhook_signing_secrets(endpoint: WebhookEndpoint) -> list[str]:
    """The secrets a delivery is signed with now: the current one, and the previous one during its overlap."""
    until = endpoint.previous_secret_until
    overlapping = bool(endpoint.previous_secret) and until is not None and until > timezone.now()
    return [endpoint.secret, endpoint.previous_secret] if overlapping else [endpoint.secret]


def _secret_replace(endpoint: WebhookEndpoint, new_secret: str) -> None:
    """Take the new secret; the old one keeps signing beside it for DOCGATE_WEBHOOK_SECRET_OVERLAP_S."""
    overlap_s = int(settings.DOCGATE_WEBHOOK_SECRET_OVERLAP_S)
    if endpoint.secret and overlap_s > 0:
        endpoint.previous_secret = endpoint.secret
        endpoint.previous_secret_until = timezone.now() + timedelta(seconds=overlap_s)
    else:
        endpoint.previous_secret, endpoint.previous_secret_until = "", None
    endpoint.secret = new_secret


def webhook_endpoint_configure(
    *,
    organisation: Organisation,
    user: Any,
    url: str,
    secret: str | None = None,
    active: bool = True,
    rotate_secret: bool = False,
    provisional_events: bool = False,
) -> tuple[WebhookEndpoint, str | None]:
    """Create or update the organisation's endpoint; return it with the secret if one was generated now."""
    webhook_url_check(url)
    given = None if secret is None else webhook_secret_checked(secret)
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(organisation=organisation).first()
        before = (
            None
            if endpoint is None
            else {"url": endpoint.url, "active": endpoint.active, "provisional_events": endpoint.provisional_events}
        )
        generated = webhook_secret_new() if given is None and (endpoint is None or rotate_secret) else None
        new_secret = given or generated
        if endpoint is None:
            endpoint = WebhookEndpoint(organisation=organisation, secret="")
        secret_changed = new_secret is not None and new_secret != endpoint.secret
        endpoint.url, endpoint.active, endpoint.updated_at = url, active, timezone.now()
        endpoint.provisional_events = provisional_events
        if new_secret is not None and secret_changed:
            _secret_replace(endpoint, new_secret)
        endpoint.save()
        audit_record(
            organisation=organisation,
            action="webhook.configured",
            obj=endpoint,
            user=user,
            before=before,
            after={
                "url": url,
                "active": active,
                "provisional_events": provisional_events,
                "secret_changed": before is None or secret_changed,
            },
        )
    return endpoint, generated
