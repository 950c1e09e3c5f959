"""The organisation's webhook endpoint: where results are sent, and the secret that signs them."""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from contracts.audit import audit_record
from contracts.models import Organisation, WebhookEndpoint
from contracts.webhooks.outbound import WebhookConfigError, webhook_url_check

MIN_SECRET_LENGTH = 24


def webhook_secret_new() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


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
    if secret is not None and len(secret) < MIN_SECRET_LENGTH:
        raise WebhookConfigError(f"The secret must be at least {MIN_SECRET_LENGTH} characters long.")
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(organisation=organisation).first()
        before = (
            None
            if endpoint is None
            else {"url": endpoint.url, "active": endpoint.active, "provisional_events": endpoint.provisional_events}
        )
        generated = webhook_secret_new() if secret is None and (endpoint is None or rotate_secret) else None
        new_secret = secret or generated
        if endpoint is None:
            assert new_secret is not None
            endpoint = WebhookEndpoint(organisation=organisation, secret=new_secret)
        secret_changed = new_secret is not None and new_secret != endpoint.secret
        endpoint.url, endpoint.active, endpoint.updated_at = url, active, timezone.now()
        endpoint.provisional_events = provisional_events
        if new_secret is not None:
            endpoint.secret = new_secret
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
