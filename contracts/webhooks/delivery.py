"""Webhook delivery: one `result.final` delivery per final result per endpoint (and one per document event a desk
raises, such as a ticket's `ticket.due_soon`), sent and retried by workers."""

from __future__ import annotations

import json
import time
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from contracts.audit import audit_record
from contracts.broker import WEBHOOK_DELIVER, backoff_delay_s, task_send_on_commit
from contracts.models import DeliveryState, Document, Job, Organisation, Result, RowId, WebhookDelivery, WebhookEndpoint
from contracts.refusals import Refused
from contracts.webhooks.endpoints import webhook_signing_secrets
from contracts.webhooks.outbound import WebhookUrlRefused, pinned_request, webhook_target
from contracts.webhooks.signing import webhook_legacy_headers, webhook_signature_headers
from contracts.webhooks.transport import WebhookSendFailed, webhook_post

EVENT_RESULT_FINAL = "result.final"
EVENT_RESULT_PROVISIONAL = "result.provisional"
EVENT_JOB_FAILED = "job.failed"
USER_AGENT = "DocGate-Webhook/1"
MAX_ERROR_CHARS = 1000
# Beyond the attempt's own bound, for writing down how it went before another worker may take the delivery.
LEASE_MARGIN_S = 10.0


class WebhookRedeliveryRefused(Refused):
    """A redelivery DocGate refuses: the delivery is not failed, or the endpoint is off (a conflict, 409)."""

    status = 409


class WebhookRetry(Exception):
    """A delivery attempt failed and will be tried again after `delay_s` seconds."""

    def __init__(self, message: str, delay_s: float) -> None:
        super().__init__(message)
        self.delay_s = delay_s


def webhook_max_attempts() -> int:
    return int(settings.DOCGATE_WEBHOOK_MAX_ATTEMPTS)


def webhook_retry_delay_s(attempt: int) -> float:
    """Backoff after the given attempt (1-based), capped at an hour."""
    return backoff_delay_s(attempt - 1, float(settings.DOCGATE_WEBHOOK_BACKOFF_S), 3600.0)


def webhook_body(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent and signed: compact UTF-8 JSON."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def webhook_headers(delivery: WebhookDelivery, body: bytes, *, timestamp: int) -> dict[str, str]:
    """The headers of one attempt: Standard Webhooks (webhook-id is the delivery's id, the same on every retry),
    the event type, and the deprecated X-DocGate-* signature headers for one more release."""
    secrets = webhook_signing_secrets(delivery.endpoint)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **webhook_signature_headers(secrets, str(delivery.pk), timestamp, body),
        "X-DocGate-Event": delivery.event,
        **webhook_legacy_headers(secrets, str(delivery.pk), timestamp, body),
    }


def webhook_event_final(*, result: Result) -> WebhookDelivery | None:
    """Record a `result.final` delivery for the organisation's active endpoint and send it after commit."""
    return _result_event(result, EVENT_RESULT_FINAL, f"result:{result.pk}")


def webhook_event_provisional(*, result: Result) -> WebhookDelivery | None:
    """Record a `result.provisional` delivery (the rules' result, `final: false`) where the endpoint asked for
    them; the same document's `result.final` follows once the model has answered."""
    return _result_event(result, EVENT_RESULT_PROVISIONAL, f"provisional:{result.pk}", provisional=True)


def _result_event(result: Result, event: str, event_key: str, *, provisional: bool = False) -> WebhookDelivery | None:
    job_state = Job.objects.filter(pk=result.job_id).values_list("state", flat=True).first()
    return _event_record(
        organisation_id=result.organisation_id,
        event=event,
        event_key=event_key,
        provisional=provisional,
        body={
            "document": _document_ref(result.document),
            "job": {"id": str(result.job_id), "state": job_state},
            "result": {
                "version": result.version,
                "final": result.final,
                "data": result.data,
                "provenance": result.provenance,
            },
        },
    )


def webhook_event_failed(*, job: Job) -> WebhookDelivery | None:
    """Record a `job.failed` delivery: the document could not be analysed (it and its original are kept); the
    error's code, message and stage say why (never its trace)."""
    error = job.error or {}
    return _event_record(
        organisation_id=job.organisation_id,
        event=EVENT_JOB_FAILED,
        event_key=f"job-failed:{job.pk}:{job.attempts}",
        body={
            "document": _document_ref(job.document),
            "job": {
                "id": str(job.pk),
                "state": job.state,
                "error": {key: error.get(key) for key in ("code", "message", "stage")},
            },
        },
    )


def webhook_event_document(
    *, document: Document, event: str, event_key: str, body: dict[str, Any]
) -> WebhookDelivery | None:
    """Record an event a desk raises about one of its documents (the hotline desk's `ticket.due_soon`,
    `ticket.overdue`), once per `event_key`, naming the document as every event does."""
    return _event_record(
        organisation_id=document.organisation_id,
        event=event,
        event_key=event_key,
        body={"document": _document_ref(document), **body},
    )


def _document_ref(document: Document) -> dict[str, Any]:
    """How an event names its document: id, kind and the caller's own reference."""
    return {"id": str(document.pk), "kind": document.kind, "reference": document.reference}


def _event_record(
    *, organisation_id: Any, event: str, event_key: str, body: dict[str, Any], provisional: bool = False
) -> WebhookDelivery | None:
    """Record one delivery of an event for the organisation's active endpoint (once per event key) and send it
    after commit; None when the organisation has no active endpoint (or, for a provisional event, one that did
    not ask for them)."""
    endpoint = WebhookEndpoint.objects.filter(organisation_id=organisation_id, active=True).first()
    if endpoint is None or (provisional and not endpoint.provisional_events):
        return None
    delivery_id = uuid.uuid4()
    payload = {
        "id": str(delivery_id),
        "type": event,
        "created_at": timezone.now().isoformat(),
        "organisation": endpoint.organisation.slug,
        **body,
    }
    with transaction.atomic():
        delivery, created = WebhookDelivery.objects.get_or_create(
            endpoint=endpoint,
            event_key=event_key,
            defaults={"id": delivery_id, "organisation_id": organisation_id, "event": event, "payload": payload},
        )
        if created:
            task_send_on_commit(WEBHOOK_DELIVER, str(delivery.pk))
    return delivery


def _delivery_claim(delivery_id: RowId) -> datetime | None:
    """Take a short lease on a pending delivery, so that two workers never send it at the same time; return when
    it ends, None when another worker holds it."""
    now = timezone.now()
    free = Q(locked_until__isnull=True) | Q(locked_until__lt=now)
    lease = now + timedelta(seconds=settings.DOCGATE_WEBHOOK_LEASE_S)
    claimed = WebhookDelivery.objects.filter(free, pk=delivery_id, state=DeliveryState.PENDING)
    return lease if claimed.update(locked_until=lease) == 1 else None


def _attempt_lease_s() -> float:
    """How long a delivery stays leased for its request: the attempt's bound with room to record its outcome."""
    return max(float(settings.DOCGATE_WEBHOOK_LEASE_S), float(settings.DOCGATE_WEBHOOK_TIMEOUT_S) + LEASE_MARGIN_S)


def _delivery_lease_extend(delivery_id: RowId, held_until: datetime, *, seconds: float) -> bool:
    """Extend our lease (the one ending at `held_until`) to `seconds` from now; False when the delivery is no
    longer pending, or another worker took it once ours had run out."""
    ours = WebhookDelivery.objects.filter(pk=delivery_id, state=DeliveryState.PENDING, locked_until=held_until)
    return ours.update(locked_until=timezone.now() + timedelta(seconds=seconds)) == 1


def _delivery_failed_attempt(delivery: WebhookDelivery, *, status_code: int | None, error: str, final: bool) -> str:
    """Record a failed attempt; give up after the last one, otherwise raise WebhookRetry."""
    attempts = delivery.attempts + 1
    now = timezone.now()
    fields: dict[str, Any] = {
        "attempts": attempts,
        "last_status_code": status_code,
        "last_error": error[:MAX_ERROR_CHARS],
        "locked_until": None,
    }
    if final or attempts >= webhook_max_attempts():
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.FAILED, next_attempt_at=None, **fields
        )
        return DeliveryState.FAILED
    delay = webhook_retry_delay_s(attempts)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=now + timedelta(seconds=delay), **fields)
    raise WebhookRetry(f"delivery {delivery.pk} attempt {attempts}: {error[:200]}", delay)


def webhook_deliver(*, delivery_id: RowId) -> str:
    """Send one delivery; return its state. A delivered or failed delivery is never sent again."""
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None:
        return "missing"
    if delivery.state != DeliveryState.PENDING:
        return str(delivery.state)
    held_until = _delivery_claim(delivery.pk)
    if held_until is None:
        return "busy"
    delivery.refresh_from_db()
    endpoint = delivery.endpoint
    if not endpoint.active:
        return _delivery_failed_attempt(delivery, status_code=None, error="The endpoint is deactivated.", final=True)
    try:
        target = webhook_target(endpoint.url)  # again at delivery time: DNS may have changed since configuration
    except WebhookUrlRefused as exc:
        return _delivery_failed_attempt(delivery, status_code=None, error=exc.message, final=not exc.retryable)
    # Resolving the host took its time: the lease now covers the whole bounded attempt, so no other worker sends
    # this delivery meanwhile (and none can hold it past the bound: nothing renews it during the request).
    if not _delivery_lease_extend(delivery.pk, held_until, seconds=_attempt_lease_s()):
        return "busy"
    body = webhook_body(delivery.payload)
    url, host_header, extensions = pinned_request(target)
    headers = {**host_header, **webhook_headers(delivery, body, timestamp=int(time.time()))}
    try:
        answer = webhook_post(url, body=body, headers=headers, extensions=extensions)
    except WebhookSendFailed as exc:
        return _delivery_failed_attempt(delivery, status_code=None, error=str(exc), final=False)
    if not 200 <= answer.status_code < 300:
        error = f"HTTP {answer.status_code}: {answer.excerpt[:300]}"
        return _delivery_failed_attempt(delivery, status_code=answer.status_code, error=error, final=False)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        state=DeliveryState.DELIVERED,
        attempts=delivery.attempts + 1,
        last_status_code=answer.status_code,
        last_error="",
        locked_until=None,
        next_attempt_at=None,
        delivered_at=timezone.now(),
    )
    return DeliveryState.DELIVERED


def webhook_redeliver(*, delivery_id: RowId, organisation: Organisation, user: Any) -> WebhookDelivery:
    """Send a failed delivery again from a fresh attempt budget: same id and payload, so receivers can dedupe.

    Raises WebhookDelivery.DoesNotExist for another organisation's delivery, WebhookRedeliveryRefused when it is
    not failed (a pending one is still being tried, a delivered one arrived) or the endpoint is deactivated.
    """
    with transaction.atomic():
        delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id, organisation=organisation)
        if delivery.state != DeliveryState.FAILED:
            raise WebhookRedeliveryRefused(
                "delivery_not_failed", f"Only a failed delivery is sent again; this one is {delivery.state}."
            )
        if not delivery.endpoint.active:
            raise WebhookRedeliveryRefused(
                "webhook_inactive", "The webhook endpoint is deactivated; activate it first."
            )
        before = {"state": delivery.state, "attempts": delivery.attempts, "last_error": delivery.last_error}
        # Conditional, so that two redelivery requests send it once.
        reopened = WebhookDelivery.objects.filter(pk=delivery.pk, state=DeliveryState.FAILED).update(
            state=DeliveryState.PENDING,
            attempts=0,
            last_status_code=None,
            last_error="",
            locked_until=None,
            next_attempt_at=None,
        )
        if reopened != 1:
            raise WebhookRedeliveryRefused(
                "delivery_not_failed", "Another request is already sending this delivery again."
            )
        delivery.refresh_from_db()
        audit_record(
            organisation=organisation,
            action="webhook.redelivery_requested",
            obj=delivery,
            user=user,
            before=before,
            after={"state": delivery.state, "attempts": 0},
        )
        task_send_on_commit(WEBHOOK_DELIVER, str(delivery.pk))
    return delivery


def webhook_deliveries_due(*, grace_s: float | None = None) -> list[str]:
    """Return pending deliveries whose retry is overdue by `grace_s` (DOCGATE_WEBHOOK_SWEEP_GRACE_S by default): a
    lost message, for the sweeper."""
    grace = settings.DOCGATE_WEBHOOK_SWEEP_GRACE_S if grace_s is None else grace_s
    overdue = timezone.now() - timedelta(seconds=grace)
    stale = Q(next_attempt_at__lt=overdue) | Q(next_attempt_at__isnull=True, created_at__lt=overdue)
    free = Q(locked_until__isnull=True) | Q(locked_until__lt=timezone.now())
    pending = WebhookDelivery.objects.filter(stale, free, state=DeliveryState.PENDING)
    return [str(pk) for pk in pending.values_list("pk", flat=True)[:500]]
