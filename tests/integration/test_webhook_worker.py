"""A real Celery worker on Redis delivers the signed webhook of a finalized review to a local receiver."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from contracts.models import DeliveryState, WebhookDelivery
from contracts.webhooks.endpoints import webhook_endpoint_configure
from tests.unit.test_webhook_delivery import local_receiver, reviewed_result
from tests.unit.test_webhook_signing import readme_verify, with_tampered_signature
from tests.workers import ROOT, celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def settings_allowing_loopback(folder: Path) -> dict[str, str]:
    """Environment for a worker whose settings are the project's plus permission to call a loopback receiver."""
    (folder / "webhook_loopback_settings.py").write_text(
        "from config.settings import *  # noqa: F403\nDOCGATE_WEBHOOK_ALLOW_PRIVATE = True\n"
    )
    return {"DJANGO_SETTINGS_MODULE": "webhook_loopback_settings", "PYTHONPATH": f"{folder}{os.pathsep}{ROOT}"}


def test_finalized_review_reaches_a_local_receiver_through_a_real_worker(
    actors: Any, redis_flushed: str, settings: Any, tmp_path: Path
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    with local_receiver() as receiver:
        _, secret = webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
        assert secret is not None
        reviewed_result(actors)  # Rita corrects and finalizes; the delivery is enqueued on commit

        log = tmp_path / "worker.log"
        with celery_worker(extra_env=settings_allowing_loopback(tmp_path), log_path=log):
            delivered = wait_until(
                lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).exists(), timeout_s=60
            )
        assert delivered, log.read_text(errors="replace")[-3000:]

    [(headers, body)] = receiver.requests
    assert readme_verify(secret, headers, body)
    assert not readme_verify(secret, with_tampered_signature(headers), body)
    event = json.loads(body)
    assert event["result"]["version"] == 2 and event["job"]["state"] == "done"
