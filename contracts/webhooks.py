"""Signed webhooks: one delivery per final result per endpoint, HMAC-SHA256 signatures, SSRF-safe targets."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from contracts.audit import audit_record
from contracts.dispatch import WEBHOOK_DELIVER, backoff_delay_s, task_send_on_commit
from contracts.models import DeliveryState, Job, Organisation, Result, WebhookDelivery, WebhookEndpoint
from contracts.refusals import Refused

EVENT_RESULT_FINAL = "result.final"
SIGNATURE_VERSION = "v1"
USER_AGENT = "DocGate-Webhook/1"
TIMEOUT_S = 10.0
MIN_SECRET_LENGTH = 24
MAX_ERROR_CHARS = 1000


class WebhookConfigError(ValueError):
    """A webhook configuration DocGate refuses; the message says why."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


class WebhookUrlRefused(WebhookConfigError):
    """A webhook target DocGate will not call (not HTTPS, or an internal address); `retryable` for DNS failures."""


class WebhookRedeliveryRefused(Refused):
    """A redelivery DocGate refuses: the delivery is not failed, or the endpoint is off (a conflict, 409)."""

    status = 409


class WebhookRetry(Exception):
    """A delivery attempt failed and will be tried again after `delay_s` seconds."""

    def __init__(self, message: str, delay_s: float) -> None:
        super().__init__(message)
        self.delay_s = delay_s


def _allow_private() -> bool:
    return bool(getattr(settings, "DOCGATE_WEBHOOK_ALLOW_PRIVATE", False))


def webhook_max_attempts() -> int:
    return int(getattr(settings, "DOCGATE_WEBHOOK_MAX_ATTEMPTS", 8))


def webhook_retry_delay_s(attempt: int) -> float:
    """Backoff after the given attempt (1-based), capped at an hour."""
    return backoff_delay_s(attempt - 1, float(getattr(settings, "DOCGATE_WEBHOOK_BACKOFF_S", 30)), 3600.0)


# --- Signatures ----------------------------------------------------------------------------------------------


def webhook_sign(secret: str, timestamp: int | str, body: bytes) -> str:
    """Return the hex HMAC-SHA256 of `{timestamp}.` followed by the raw body."""
    return hmac.new(secret.encode("utf-8"), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def webhook_verify(
    secret: str, timestamp: str, body: bytes, signature: str, tolerance_s: int = 300, now: float | None = None
) -> bool:
    """Check an `X-DocGate-Signature` header (`v1=<hex>`, several allowed) and the timestamp's freshness."""
    try:
        sent_at = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - sent_at) > tolerance_s:
        return False
    expected = webhook_sign(secret, sent_at, body)
    candidates = [part.strip() for part in signature.split(",")]
    return any(
        hmac.compare_digest(value.strip(), expected)
        for scheme, _, value in (candidate.partition("=") for candidate in candidates)
        if scheme.strip() == SIGNATURE_VERSION
    )


# --- Targets -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WebhookTarget:
    """A vetted URL and the addresses its host resolved to when it was checked."""

    url: str
    host: str
    port: int
    addresses: tuple[str, ...]


def _address_refusal(address: str) -> str | None:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for label, hit in (
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("unspecified", ip.is_unspecified),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
        ("not globally routable", not ip.is_global),
    ):
        if hit:
            return label
    return None


def webhook_target(url: str) -> WebhookTarget:
    """Check a webhook URL and resolve its host; raise WebhookUrlRefused for anything DocGate must not call."""
    allow_private = _allow_private()
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise WebhookUrlRefused(f"The webhook URL is malformed: {exc}.") from exc
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        raise WebhookUrlRefused("The webhook URL must use https://.")
    if not parts.hostname:
        raise WebhookUrlRefused("The webhook URL has no host.")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlRefused("The webhook URL must not contain credentials; use the signing secret instead.")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookUrlRefused(f"The webhook host {parts.hostname} cannot be resolved.", retryable=True) from exc
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise WebhookUrlRefused(f"The webhook host {parts.hostname} cannot be resolved.", retryable=True)
    if not allow_private:
        # Every address counts: a host answering with one public and one internal address is refused.
        for address in addresses:
            refusal = _address_refusal(address)
            if refusal:
                where = address if address == parts.hostname else f"{parts.hostname} (resolves to {address})"
                raise WebhookUrlRefused(
                    f"The webhook target {where} is a {refusal} address; webhooks go only to public internet addresses."
                )
    return WebhookTarget(url=urlunsplit(parts), host=parts.hostname, port=port, addresses=addresses)


def webhook_url_check(url: str) -> None:
    """Raise WebhookUrlRefused unless the URL is HTTPS and its host resolves only to public addresses."""
    webhook_target(url)


# --- Configuration -------------------------------------------------------------------------------------------


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
) -> tuple[WebhookEndpoint, str | None]:
    """Create or update the organisation's endpoint; return it with the secret if one was generated now."""
    webhook_url_check(url)
    if secret is not None and len(secret) < MIN_SECRET_LENGTH:
        raise WebhookConfigError(f"The secret must be at least {MIN_SECRET_LENGTH} characters long.")
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(organisation=organisation).first()
        before = None if endpoint is None else {"url": endpoint.url, "active": endpoint.active}
        generated = webhook_secret_new() if secret is None and (endpoint is None or rotate_secret) else None
        new_secret = secret or generated
        if endpoint is None:
            assert new_secret is not None
            endpoint = WebhookEndpoint(organisation=organisation, secret=new_secret)
        secret_changed = new_secret is not None and new_secret != endpoint.secret
        endpoint.url, endpoint.active, endpoint.updated_at = url, active, timezone.now()
        if new_secret is not None:
            endpoint.secret = new_secret
        endpoint.save()
        audit_record(
            organisation=organisation,
            action="webhook.configured",
            obj=endpoint,
            user=user,
            before=before,
            after={"url": url, "active": active, "secret_changed": before is None or secret_changed},
        )
    return endpoint, generated


# --- Events and delivery -------------------------------------------------------------------------------------


def webhook_body(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent and signed: compact UTF-8 JSON."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")


def webhook_event_final(*, result: Result) -> WebhookDelivery | None:
    """Record a `result.final` delivery for the organisation's active endpoint and send it after commit."""
    endpoint = WebhookEndpoint.objects.filter(organisation_id=result.organisation_id, active=True).first()
    if endpoint is None:
        return None
    delivery_id = uuid.uuid4()
    document = result.document
    job_state = Job.objects.filter(pk=result.job_id).values_list("state", flat=True).first()
    payload = {
        "id": str(delivery_id),
        "type": EVENT_RESULT_FINAL,
        "created_at": timezone.now().isoformat(),
        "organisation": endpoint.organisation.slug,
        "document": {"id": str(document.pk), "kind": document.kind, "reference": document.reference},
        "job": {"id": str(result.job_id), "state": job_state},
        "result": {"version": result.version, "data": result.data, "provenance": result.provenance},
    }
    with transaction.atomic():
        delivery, created = WebhookDelivery.objects.get_or_create(
            endpoint=endpoint,
            event_key=f"result:{result.pk}",
            defaults={
                "id": delivery_id,
                "organisation_id": result.organisation_id,
                "event": EVENT_RESULT_FINAL,
                "payload": payload,
            },
        )
        if created:
            task_send_on_commit(WEBHOOK_DELIVER, str(delivery.pk))
    return delivery


def _delivery_claim(delivery_id: Any) -> bool:
    """Take a short lease on a pending delivery, so that two workers never send it at the same time."""
    now = timezone.now()
    free = Q(locked_until__isnull=True) | Q(locked_until__lt=now)
    lease = now + timedelta(seconds=TIMEOUT_S * 3)
    claimed = WebhookDelivery.objects.filter(free, pk=delivery_id, state=DeliveryState.PENDING)
    return claimed.update(locked_until=lease) == 1


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


def _pinned_request(target: WebhookTarget) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Address the vetted IP directly (no second DNS lookup to rebind), with the real host for Host and TLS."""
    parts = urlsplit(target.url)
    address = target.addresses[0]
    literal = f"[{address}]" if ":" in address else address
    pinned = urlunsplit(parts._replace(netloc=f"{literal}:{target.port}"))
    host_header = parts.netloc.rsplit("@", 1)[-1]
    extensions = {"sni_hostname": target.host} if parts.scheme == "https" else {}
    return pinned, {"Host": host_header}, extensions


def webhook_deliver(*, delivery_id: Any) -> str:
    """Send one delivery; return its state. A delivered or failed delivery is never sent again."""
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None:
        return "missing"
    if delivery.state != DeliveryState.PENDING:
        return str(delivery.state)
    if not _delivery_claim(delivery.pk):
        return "busy"
    delivery.refresh_from_db()
    endpoint = delivery.endpoint
    if not endpoint.active:
        return _delivery_failed_attempt(delivery, status_code=None, error="The endpoint is deactivated.", final=True)
    try:
        target = webhook_target(endpoint.url)  # again at delivery time: DNS may have changed since configuration
    except WebhookUrlRefused as exc:
        return _delivery_failed_attempt(delivery, status_code=None, error=exc.message, final=not exc.retryable)
    body = webhook_body(delivery.payload)
    timestamp = str(int(time.time()))
    url, host_header, extensions = _pinned_request(target)
    headers = {
        **host_header,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-DocGate-Event": delivery.event,
        "X-DocGate-Delivery": str(delivery.pk),
        "X-DocGate-Timestamp": timestamp,
        "X-DocGate-Signature": f"{SIGNATURE_VERSION}={webhook_sign(endpoint.secret, timestamp, body)}",
    }
    try:
        with httpx.Client(timeout=TIMEOUT_S, follow_redirects=False, trust_env=False) as client:
            response = client.post(url, content=body, headers=headers, extensions=extensions)
    except httpx.HTTPError as exc:
        return _delivery_failed_attempt(delivery, status_code=None, error=f"{type(exc).__name__}: {exc}", final=False)
    if not 200 <= response.status_code < 300:
        error = f"HTTP {response.status_code}: {response.text[:300]}"
        return _delivery_failed_attempt(delivery, status_code=response.status_code, error=error, final=False)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        state=DeliveryState.DELIVERED,
        attempts=delivery.attempts + 1,
        last_status_code=response.status_code,
        last_error="",
        locked_until=None,
        next_attempt_at=None,
        delivered_at=timezone.now(),
    )
    return DeliveryState.DELIVERED


def webhook_redeliver(*, delivery_id: Any, organisation: Organisation, user: Any) -> WebhookDelivery:
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


def webhook_deliveries_due(*, grace_s: float = 600.0) -> list[str]:
    """Return pending deliveries whose retry is overdue by `grace_s` (a lost message), for the sweeper."""
    overdue = timezone.now() - timedelta(seconds=grace_s)
    stale = Q(next_attempt_at__lt=overdue) | Q(next_attempt_at__isnull=True, created_at__lt=overdue)
    free = Q(locked_until__isnull=True) | Q(locked_until__lt=timezone.now())
    pending = WebhookDelivery.objects.filter(stale, free, state=DeliveryState.PENDING)
    return [str(pk) for pk in pending.values_list("pk", flat=True)[:500]]
