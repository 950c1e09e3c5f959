"""Webhook configuration and delivery log over the API: admins only, internal targets refused, secret shown once."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from contracts.models import AuditEvent, Role, WebhookDelivery, WebhookEndpoint
from contracts.webhooks.signing import webhook_secret_key, webhook_secret_new
from tests.api.test_review_access import acme_member
from tests.api.test_review_workflow import signed_in

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhook/"
PUBLIC = "https://93.184.216.34/docgate"


@pytest.fixture
def ada(actors: Any) -> APIClient:
    """Ada administers Acme."""
    return signed_in(acme_member(actors, "ada", Role.ADMIN))


def test_admin_sets_the_endpoint_and_sees_the_generated_secret_once(ada: APIClient, actors: Any) -> None:
    response = ada.get(URL)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "webhook_not_configured"

    created = ada.put(URL, {"url": PUBLIC}, format="json")
    assert created.status_code == 200, created.json()
    secret = created.json()["secret"]
    assert secret.startswith("whsec_") and len(webhook_secret_key(secret)) == 32  # Standard Webhooks form
    assert created.json()["secret_hint"] == f"whsec_…{secret[-4:]}" and created.json()["previous_secret_until"] is None
    assert WebhookEndpoint.objects.get(organisation=actors.acme).secret == secret

    shown = ada.get(URL).json()
    assert shown["url"] == PUBLIC and shown["active"] is True
    assert "secret" not in shown and secret not in str(shown)

    moved = ada.put(URL, {"url": "https://93.184.216.34/v2/docgate"}, format="json").json()
    assert "secret" not in moved  # the secret is kept when only the URL changes
    assert WebhookEndpoint.objects.get(organisation=actors.acme).secret == secret

    rotated = ada.put(URL, {"url": PUBLIC, "rotate_secret": True}, format="json").json()
    assert rotated["secret"] != secret and rotated["secret"].startswith("whsec_")
    assert rotated["previous_secret_until"] is not None  # the old secret still signs until then
    assert "secret" not in ada.get(URL).json()


def test_admin_may_bring_their_own_secret(ada: APIClient, actors: Any) -> None:
    own = webhook_secret_new()
    body = ada.put(URL, {"url": PUBLIC, "secret": own}, format="json").json()
    assert "secret" not in body
    assert WebhookEndpoint.objects.get(organisation=actors.acme).secret == own
    plain = "my-own-secret-of-thirty-two-chars"  # chosen before the whsec_ form: its UTF-8 bytes stay the key
    assert ada.put(URL, {"url": PUBLIC, "secret": plain}, format="json").status_code == 200
    assert webhook_secret_key(WebhookEndpoint.objects.get(organisation=actors.acme).secret) == plain.encode()
    short = ada.put(URL, {"url": PUBLIC, "secret": "short"}, format="json")
    assert short.status_code == 400 and short.json()["error"]["code"] == "invalid"
    weak = ada.put(URL, {"url": PUBLIC, "secret": "whsec_c2l4dGVlbiBieXRlcyEhIQ=="}, format="json")
    assert weak.status_code == 400 and weak.json()["error"]["code"] == "invalid_webhook"
    assert "24" in weak.json()["error"]["message"]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://93.184.216.34/hook", "https"),
        ("https://127.0.0.1/hook", "loopback"),
        ("https://10.0.0.8/hook", "private"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://[::1]/hook", "loopback"),
        ("https://localhost/hook", "loopback"),
    ],
    ids=["plain-http", "loopback", "private", "cloud-metadata", "ipv6-loopback", "localhost"],
)
def test_internal_or_plain_http_targets_are_a_clear_400(ada: APIClient, settings: Any, url: str, says: str) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    response = ada.put(URL, {"url": url}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_webhook"
    assert says in response.json()["error"]["message"]
    assert not WebhookEndpoint.objects.exists()


def test_configuration_is_audited_without_the_secret(ada: APIClient) -> None:
    secret = ada.put(URL, {"url": PUBLIC}, format="json").json()["secret"]
    event = AuditEvent.objects.get(action="webhook.configured")
    assert event.actor_user is not None and event.actor_user.get_username() == "ada"
    assert event.before is None
    assert event.after == {"url": PUBLIC, "active": True, "provisional_events": False, "secret_changed": True}
    assert secret not in str(event.after)


def test_an_endpoint_can_ask_for_provisional_results_too(ada: APIClient) -> None:
    assert ada.put(URL, {"url": PUBLIC}, format="json").json()["provisional_events"] is False
    answer = ada.put(URL, {"url": PUBLIC, "provisional_events": True}, format="json")
    assert answer.status_code == 200 and answer.json()["provisional_events"] is True
    assert ada.get(URL).json()["provisional_events"] is True
    event = AuditEvent.objects.filter(action="webhook.configured").order_by("-created_at")[0]
    assert event.before is not None and event.before["provisional_events"] is False
    assert (event.after or {})["provisional_events"] is True


def test_only_admins_of_the_organisation_configure_webhooks(actors: Any, acme_api: Any) -> None:
    for client in (signed_in(actors.rita), signed_in(actors.alice), acme_api):
        assert client.get(URL).status_code == 403
        assert client.put(URL, {"url": PUBLIC}, format="json").status_code == 403
        assert client.get(f"{URL}deliveries/").status_code == 403
    assert APIClient().get(URL).status_code == 401
    assert not WebhookEndpoint.objects.exists()


def test_delivery_log_is_paginated_and_scoped_to_the_organisation(ada: APIClient, actors: Any) -> None:
    endpoint = WebhookEndpoint.objects.create(organisation=actors.acme, url=PUBLIC, secret="s" * 32)
    for n in range(3):
        WebhookDelivery.objects.create(
            endpoint=endpoint,
            organisation=actors.acme,
            event="result.final",
            event_key=f"result:{n}",
            payload={},
            state="failed" if n == 0 else "delivered",
            attempts=8 if n == 0 else 1,
            last_status_code=500 if n == 0 else 200,
        )
    log = ada.get(f"{URL}deliveries/").json()
    assert log["count"] == 3 and len(log["results"]) == 3
    assert set(log["results"][0]) >= {"id", "event", "state", "attempts", "last_status_code", "last_error"}
    failed = ada.get(f"{URL}deliveries/", {"state": "failed"}).json()["results"]
    assert [(row["attempts"], row["last_status_code"]) for row in failed] == [(8, 500)]

    oscar = signed_in(actors.oscar)  # Globex's admin
    assert oscar.get(f"{URL}deliveries/").json()["count"] == 0
    assert oscar.get(URL).status_code == 404


def test_the_secret_hint_shows_the_last_four_characters_and_nothing_more_of_the_key(ada: APIClient) -> None:
    """The hint lets an admin tell which secret is set; it carries no more than 4 characters of it (24 bits were
    shown before: the first four after `whsec_`)."""
    secret = ada.put(URL, {"url": PUBLIC}, format="json").json()["secret"]
    hint = ada.get(URL).json()["secret_hint"]
    assert hint == f"whsec_…{secret[-4:]}"
    assert secret[6:10] not in hint.removesuffix(secret[-4:])


def test_the_django_admin_never_shows_either_signing_secret(client: Any, ada: APIClient, actors: Any) -> None:
    """An operator editing the endpoint in /admin/ sees neither the secret nor, during a rotation, the old one."""
    from django.contrib.auth import get_user_model

    first = ada.put(URL, {"url": PUBLIC}, format="json").json()["secret"]
    second = ada.put(URL, {"url": PUBLIC, "rotate_secret": True}, format="json").json()["secret"]
    endpoint = WebhookEndpoint.objects.get(organisation=actors.acme)
    assert endpoint.previous_secret == first
    client.force_login(get_user_model().objects.create_superuser("root", password="root-password-1"))
    page = client.get(f"/admin/contracts/webhookendpoint/{endpoint.pk}/change/")
    assert page.status_code == 200
    shown = page.content.decode()
    assert second not in shown and first not in shown and 'previous_secret"' not in shown
