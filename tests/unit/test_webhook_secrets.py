"""Webhook secrets across changes: a rotation signs with both secrets for a while, and a secret from before the
Standard Webhooks format (kept by the migration) still verifies real deliveries to a local receiver."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from contracts.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from contracts.webhooks.delivery import webhook_deliver
from contracts.webhooks.endpoints import webhook_endpoint_configure
from tests.unit.test_webhook_delivery import Receiver, local_receiver, reviewed_result
from tests.unit.test_webhook_signing import docgate_v0_verify, readme_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with local_receiver() as state:
        yield state


def _deliver_once(actors: Any, receiver: Receiver) -> tuple[dict[str, str], bytes]:
    reviewed_result(actors)
    delivery = WebhookDelivery.objects.get()
    assert webhook_deliver(delivery_id=delivery.pk) == DeliveryState.DELIVERED
    return receiver.requests[-1]


def test_after_a_rotation_both_secrets_verify_until_the_overlap_ends(
    actors: Any, receiver: Receiver, settings: Any
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    _, old = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
    endpoint, new = webhook_endpoint_configure(
        organisation=actors.acme, user=None, url=receiver.url, rotate_secret=True
    )
    assert old and new and old != new and endpoint.previous_secret == old
    assert endpoint.previous_secret_until is not None
    assert endpoint.previous_secret_until > timezone.now() + timedelta(hours=23)

    headers, body = _deliver_once(actors, receiver)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert readme_verify(new, headers, body) and readme_verify(old, headers, body)

    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(previous_secret_until=timezone.now() - timedelta(seconds=1))
    WebhookDelivery.objects.update(state=DeliveryState.PENDING)
    assert webhook_deliver(delivery_id=WebhookDelivery.objects.get().pk) == DeliveryState.DELIVERED
    headers, body = receiver.requests[-1]
    assert readme_verify(new, headers, body) and not readme_verify(old, headers, body)


def test_without_an_overlap_a_rotated_secret_stops_signing_at_once(
    actors: Any, receiver: Receiver, settings: Any
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    settings.DOCGATE_WEBHOOK_SECRET_OVERLAP_S = 0
    _, old = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
    _, new = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url, rotate_secret=True)
    assert old and new
    headers, body = _deliver_once(actors, receiver)
    assert readme_verify(new, headers, body) and not readme_verify(old, headers, body)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_an_existing_secret_working(actors: Any, receiver: Receiver, settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    old_secret = "whsec_" + secrets.token_urlsafe(32)  # what DocGate generated before Standard Webhooks
    before, after = [("contracts", "0004_progressive_results")], [("contracts", "0005_webhook_standard_secrets")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old_state = executor.loader.project_state(before).apps
        old_model = old_state.get_model("contracts", "WebhookEndpoint")
        old_model.objects.create(organisation_id=actors.acme.pk, url=receiver.url, secret=old_secret)
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(after)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes("contracts"))  # and on to today's schema

    stored = WebhookEndpoint.objects.get(organisation=actors.acme).secret
    assert stored == "whsec_" + base64.b64encode(old_secret.encode()).decode()
    headers, body = _deliver_once(actors, receiver)
    assert readme_verify(old_secret.encode(), headers, body)  # the receiver's own string, as the key bytes
    assert readme_verify(stored, headers, body)
    assert docgate_v0_verify(old_secret, headers, body)  # the deprecated headers, checked the old way
