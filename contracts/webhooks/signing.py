"""Webhook secrets and signatures in the Standard Webhooks format (https://www.standardwebhooks.com).

A secret is `whsec_` followed by the standard base64 of its key bytes; a signature is `v1,` followed by the base64
HMAC-SHA256, keyed with those bytes, of `{webhook-id}.{webhook-timestamp}.{body}`. Several signatures (a secret
being rotated) are separated by spaces.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Sequence

from django.utils.translation import gettext as _

from contracts.webhooks.outbound import WebhookConfigError

SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
# Keys shorter than this are refused (the spec recommends 24 to 64 random bytes); a generated key has 32.
MIN_KEY_BYTES = 24
GENERATED_KEY_BYTES = 32
# A secret not in `whsec_<base64>` form (one chosen before DocGate used the format) is its own UTF-8 bytes.
MIN_PLAIN_SECRET_CHARS = 24


class WebhookSecretRefused(WebhookConfigError):
    """A webhook secret DocGate will not sign with; the message says why."""


def webhook_secret_of_key(key: bytes) -> str:
    """The `whsec_` form of raw key bytes."""
    return SECRET_PREFIX + base64.b64encode(key).decode("ascii")


def webhook_secret_new() -> str:
    """A fresh secret: `whsec_` and the base64 of 32 random bytes."""
    return webhook_secret_of_key(secrets.token_bytes(GENERATED_KEY_BYTES))


def webhook_secret_key(secret: str) -> bytes:
    """The HMAC key of a stored secret (the base64-decoded part after `whsec_`); binascii.Error if malformed."""
    if not secret.startswith(SECRET_PREFIX):
        raise binascii.Error("a stored webhook secret starts with whsec_")
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX), validate=True)


def webhook_secret_checked(secret: str) -> str:
    """Return an admin's secret in the stored `whsec_` form; raise WebhookSecretRefused for a weak one.

    `whsec_<standard base64>` is decoded (at least 24 key bytes); any other text of at least 24 characters keeps
    the meaning it had before DocGate used this format: its UTF-8 bytes are the key.
    """
    if secret.startswith(SECRET_PREFIX):
        try:
            key = webhook_secret_key(secret)
        except binascii.Error:
            key = None  # not base64 after the prefix: a plain secret that happens to start with whsec_
        if key is not None:
            if len(key) < MIN_KEY_BYTES:
                raise WebhookSecretRefused(
                    _("A whsec_ secret must encode at least %(n)s random bytes (this one has %(has)s).")
                    % {"n": MIN_KEY_BYTES, "has": len(key)}
                )
            return secret
    if len(secret) < MIN_PLAIN_SECRET_CHARS:
        raise WebhookSecretRefused(
            _(
                "The secret must be whsec_ and the base64 of at least %(n)s random bytes, "
                "or at least %(chars)s characters."
            )
            % {"n": MIN_KEY_BYTES, "chars": MIN_PLAIN_SECRET_CHARS}
        )
    return webhook_secret_of_key(secret.encode("utf-8"))


def webhook_sign(secret: str, msg_id: str, timestamp: int | str, body: bytes) -> str:
    """One signature: `v1,` and the base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` under the secret's key."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(webhook_secret_key(secret), signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode('ascii')}"


def webhook_signature_headers(secrets: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt, signed once per secret (space-separated)."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(webhook_sign(secret, msg_id, timestamp, body) for secret in secrets),
    }


def webhook_legacy_headers(secrets: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The X-DocGate-* headers that DocGate sent before it used Standard Webhooks (deprecated, one release left).

    `X-DocGate-Signature` is `v1=<hex HMAC-SHA256 of "{timestamp}." + body>` under the same key, so a receiver that
    still checks it with the secret it was given keeps working until it moves to the webhook-* headers.
    """
    signatures = (
        hmac.new(webhook_secret_key(secret), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
        for secret in secrets
    )
    return {
        "X-DocGate-Delivery": msg_id,
        "X-DocGate-Timestamp": str(timestamp),
        "X-DocGate-Signature": ", ".join(f"{SIGNATURE_VERSION}={signature}" for signature in signatures),
    }
