"""Webhook signatures in the Standard Webhooks format, checked with the `standardwebhooks` library, and the
refusal of internal targets; no network."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from typing import Any
from unittest import mock

import pytest
from django.utils import translation
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from contracts.webhooks.outbound import WebhookUrlRefused, webhook_target, webhook_url_check
from contracts.webhooks.signing import (
    WebhookSecretRefused,
    webhook_legacy_headers,
    webhook_secret_checked,
    webhook_secret_key,
    webhook_secret_new,
    webhook_sign,
    webhook_signature_headers,
)

SECRET = webhook_secret_new()
MSG_ID = "0b5a6f0e-6f3c-4d39-9a51-3c0f1c6f2b10"
BODY = '{"id":"d1","type":"result.final","result":{"version":2,"data":{"label":"城管"}}}'.encode()


def readme_verify(secret: str | bytes, headers: dict[str, str], body: bytes) -> bool:
    """The receiver-side check as the README shows it: the standardwebhooks library on the raw body."""
    try:
        Webhook(secret).verify(body, headers)
    except WebhookVerificationError:
        return False
    return True


def with_tampered_signature(headers: dict[str, str]) -> dict[str, str]:
    """The same headers with one base64 character of each signature changed (still well-formed base64)."""
    signatures = []
    for signature in headers["webhook-signature"].split(" "):
        version, _, value = signature.partition(",")
        signatures.append(f"{version},{'B' if value[0] == 'A' else 'A'}{value[1:]}")
    return {**headers, "webhook-signature": " ".join(signatures)}


def signed_headers(secret: str = SECRET, body: bytes = BODY, timestamp: int | None = None) -> dict[str, str]:
    ts = int(time.time()) if timestamp is None else timestamp
    return webhook_signature_headers([secret], MSG_ID, ts, body)


def test_signature_is_base64_hmac_sha256_over_id_timestamp_body_keyed_with_the_decoded_secret() -> None:
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    expected = base64.b64encode(hmac.new(key, f"{MSG_ID}.1700000000.".encode() + BODY, hashlib.sha256).digest())
    assert webhook_sign(SECRET, MSG_ID, 1700000000, BODY) == f"v1,{expected.decode()}"
    at = datetime.fromtimestamp(1700000000, tz=UTC)
    assert webhook_sign(SECRET, MSG_ID, 1700000000, BODY) == Webhook(SECRET).sign(MSG_ID, at, BODY.decode())


def test_a_fresh_signature_verifies_with_standardwebhooks() -> None:
    headers = signed_headers()
    assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert Webhook(SECRET).verify(BODY, headers) == {
        "id": "d1",
        "type": "result.final",
        "result": {"version": 2, "data": {"label": "城管"}},
    }


@pytest.mark.parametrize(
    "tamper",
    [
        lambda h, b: (h, b.replace("城管".encode(), "环保".encode())),
        lambda h, b: (with_tampered_signature(h), b),
        lambda h, b: ({**h, "webhook-timestamp": str(int(h["webhook-timestamp"]) + 1)}, b),
        lambda h, b: ({**h, "webhook-id": "another-delivery"}, b),
        lambda h, b: (signed_headers(secret=webhook_secret_new(), body=b), b),
        lambda h, b: ({**h, "webhook-signature": h["webhook-signature"].replace("v1,", "v2,")}, b),
        lambda h, b: ({k: v for k, v in h.items() if k != "webhook-signature"}, b),
    ],
    ids=[
        "tampered-body",
        "tampered-signature",
        "tampered-timestamp",
        "tampered-id",
        "wrong-secret",
        "unknown-version",
        "no-signature",
    ],
)
def test_tampering_fails_verification(tamper: Any) -> None:
    headers, body = tamper(signed_headers(), BODY)
    assert not readme_verify(SECRET, headers, body)


@pytest.mark.parametrize("age_s", [301, -301, 86_400], ids=["stale", "from-the-future", "a-day-old-replay"])
def test_stale_or_future_timestamps_fail(age_s: int) -> None:
    headers = signed_headers(timestamp=int(time.time()) - age_s)
    assert not readme_verify(SECRET, headers, BODY)


def test_during_a_rotation_either_secret_verifies_the_space_separated_signatures() -> None:
    old, new = webhook_secret_new(), webhook_secret_new()
    headers = webhook_signature_headers([new, old], MSG_ID, int(time.time()), BODY)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert readme_verify(new, headers, BODY) and readme_verify(old, headers, BODY)
    assert not readme_verify(webhook_secret_new(), headers, BODY)


def test_a_generated_secret_is_whsec_and_the_base64_of_32_random_bytes() -> None:
    secret = webhook_secret_new()
    assert secret.startswith("whsec_") and len(webhook_secret_key(secret)) == 32
    assert webhook_secret_checked(secret) == secret


@pytest.mark.parametrize(
    "plain",
    ["my-own-secret-of-thirty-two-chars", "whsec_" + secrets.token_urlsafe(32), "我们自己定的密钥" * 4],
    ids=["admin-chosen", "docgate-generated-before", "non-ascii"],
)
def test_a_plain_secret_keeps_its_utf8_bytes_as_the_key(plain: str) -> None:
    stored = webhook_secret_checked(plain)
    assert stored.startswith("whsec_") and webhook_secret_key(stored) == plain.encode()
    headers = webhook_signature_headers([stored], MSG_ID, int(time.time()), BODY)
    assert readme_verify(plain.encode(), headers, BODY) and readme_verify(stored, headers, BODY)


def docgate_v0_verify(secret: str, headers: dict[str, str], body: bytes, tolerance_s: int = 300) -> bool:
    """The receiver check DocGate's README showed before Standard Webhooks (X-DocGate-* headers)."""
    timestamp = headers["X-DocGate-Timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    signatures = [s.strip().removeprefix("v1=") for s in headers["X-DocGate-Signature"].split(",")]
    return any(hmac.compare_digest(expected, s) for s in signatures)


def test_the_deprecated_headers_still_verify_with_the_old_secret_and_the_old_check() -> None:
    plain = "whsec_" + secrets.token_urlsafe(32)  # what DocGate generated before
    stored, rotated = webhook_secret_checked(plain), webhook_secret_new()
    legacy = webhook_legacy_headers([rotated, stored], MSG_ID, int(time.time()), BODY)
    assert legacy["X-DocGate-Delivery"] == MSG_ID
    assert docgate_v0_verify(plain, legacy, BODY)
    assert not docgate_v0_verify(plain, legacy, BODY.replace(b"2", b"3"))


@pytest.mark.parametrize(
    "weak",
    ["short", "x" * 23, "whsec_" + base64.b64encode(b"sixteen bytes!!!").decode()],
    ids=["five-characters", "twenty-three-characters", "whsec-of-16-bytes"],
)
def test_weak_secrets_are_refused(weak: str) -> None:
    with pytest.raises(WebhookSecretRefused) as refused:
        webhook_secret_checked(weak)
    assert "24" in refused.value.message


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.216.34/hook",
        "ftp://93.184.216.34/hook",
        "https://127.0.0.1/hook",
        "https://127.8.9.10:8443/hook",
        "https://10.1.2.3/hook",
        "https://172.16.0.5/hook",
        "https://192.168.1.1/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://100.64.0.1/hook",
        "https://0.0.0.0/hook",
        "https://224.0.0.1/hook",
        "https://[::1]/hook",
        "https://[fe80::1]/hook",
        "https://[fd00::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://localhost/hook",
        "https://user:pass@93.184.216.34/hook",
        "https:///no-host",
        "https://93.184.216.34:99999/hook",
    ],
    ids=lambda url: url.split("//", 1)[-1] or url,
)
def test_internal_or_non_https_targets_are_refused(settings: Any, url: str) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    with pytest.raises(WebhookUrlRefused) as refused:
        webhook_url_check(url)
    assert refused.value.message


@contextmanager
def network_recorded() -> Iterator[list[str]]:
    """Record (and refuse) every connection and name lookup; an address literal is still "resolved", as the OS
    does it: locally, with AI_NUMERICHOST, so that a lookup needing DNS is recorded instead of answered."""
    calls: list[str] = []
    getaddrinfo = socket.getaddrinfo

    def refused(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(f"{name}{args}")
            raise OSError(f"{name}: no network in this test")

        return call

    def numeric_only(host: Any, port: Any, family: int = 0, type: int = 0, proto: int = 0, flags: int = 0) -> Any:
        try:
            return getaddrinfo(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            calls.append(f"DNS lookup of {host}")
            raise

    with ExitStack() as stack:
        for name in ("gethostbyname", "gethostbyname_ex", "gethostbyaddr", "getnameinfo", "create_connection"):
            stack.enter_context(mock.patch.object(socket, name, refused(name)))
        for name in ("connect", "connect_ex"):
            stack.enter_context(mock.patch.object(socket.socket, name, refused(f"socket.{name}")))
        stack.enter_context(mock.patch.object(socket, "getaddrinfo", numeric_only))
        yield calls


@pytest.mark.parametrize(
    ("url", "address", "port"),
    [
        ("https://93.184.216.34/hook", "93.184.216.34", 443),
        ("https://93.184.216.34:8443/h?x=1", "93.184.216.34", 8443),
        ("https://[2606:2800:220:1::1946]/hook", "2606:2800:220:1::1946", 443),
    ],
    ids=["ipv4", "ipv4-port-query", "ipv6"],
)
def test_public_https_targets_are_accepted_without_a_network_call(
    settings: Any, url: str, address: str, port: int
) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    with network_recorded() as calls:
        webhook_url_check(url)
        target = webhook_target(url)
    assert calls == []
    assert (target.addresses, target.port) == ((address,), port)


def test_a_host_with_any_internal_address_is_refused(settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 443)),
    ]
    with (
        mock.patch("contracts.webhooks.outbound.socket.getaddrinfo", return_value=answers),
        pytest.raises(WebhookUrlRefused, match=r"resolves to 10\.0\.0\.7\) is a private address"),
        translation.override("en"),
    ):
        webhook_url_check("https://hooks.example.com/docgate")


def test_an_unresolvable_host_is_refused_as_retryable(settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    with (
        mock.patch("contracts.webhooks.outbound.socket.getaddrinfo", side_effect=socket.gaierror("no such host")),
        pytest.raises(WebhookUrlRefused) as refused,
    ):
        webhook_url_check("https://hooks.example.com/docgate")
    assert refused.value.retryable


def test_the_allow_private_setting_admits_local_http_receivers(settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    target = webhook_target("http://127.0.0.1:8099/hook")
    assert target.addresses == ("127.0.0.1",) and target.port == 8099
