"""Webhook signatures (HMAC-SHA256 over timestamp + body) and the refusal of internal targets; no network."""

from __future__ import annotations

import hashlib
import hmac
import socket
import time
from typing import Any
from unittest import mock

import pytest

from contracts.webhooks.outbound import (
    WebhookUrlRefused,
    webhook_sign,
    webhook_target,
    webhook_url_check,
    webhook_verify,
)

SECRET = "whsec_test-secret-of-enough-length"
BODY = '{"id":"d1","type":"result.final","result":{"version":2,"data":{"label":"城管"}}}'.encode()


def readme_verify(secret: str, headers: dict[str, str], body: bytes, tolerance_s: int = 300) -> bool:
    """The receiver-side check exactly as the README shows it (standard library only)."""
    timestamp = headers["X-DocGate-Timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    signatures = [s.strip().removeprefix("v1=") for s in headers["X-DocGate-Signature"].split(",")]
    return any(hmac.compare_digest(expected, s) for s in signatures)


def flip_last_hex_digit(signature: str) -> str:
    return signature[:-1] + ("1" if signature.endswith("0") else "0")


def signed_headers(secret: str = SECRET, body: bytes = BODY, timestamp: int | None = None) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    return {"X-DocGate-Timestamp": ts, "X-DocGate-Signature": f"v1={webhook_sign(secret, ts, body)}"}


def test_signature_is_hmac_sha256_over_timestamp_dot_body() -> None:
    expected = hmac.new(SECRET.encode(), b"1700000000." + BODY, hashlib.sha256).hexdigest()
    assert webhook_sign(SECRET, 1700000000, BODY) == expected == webhook_sign(SECRET, "1700000000", BODY)


def test_a_fresh_signature_verifies_with_the_service_and_the_readme_snippet() -> None:
    headers = signed_headers()
    assert webhook_verify(SECRET, headers["X-DocGate-Timestamp"], BODY, headers["X-DocGate-Signature"])
    assert readme_verify(SECRET, headers, BODY)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda h, b: (h, b.replace("城管".encode(), "环保".encode())),
        lambda h, b: ({**h, "X-DocGate-Signature": flip_last_hex_digit(h["X-DocGate-Signature"])}, b),
        lambda h, b: ({**h, "X-DocGate-Timestamp": str(int(h["X-DocGate-Timestamp"]) + 1)}, b),
        lambda h, b: ({**h, "X-DocGate-Signature": "v1=" + webhook_sign("whsec_another-secret-entirely", "1", b)}, b),
        lambda h, b: ({**h, "X-DocGate-Signature": ""}, b),
    ],
    ids=["tampered-body", "tampered-signature", "tampered-timestamp", "wrong-secret", "no-signature"],
)
def test_tampering_fails_verification(tamper: Any) -> None:
    headers, body = tamper(signed_headers(), BODY)
    assert not webhook_verify(SECRET, headers["X-DocGate-Timestamp"], body, headers["X-DocGate-Signature"])
    assert not readme_verify(SECRET, headers, body)


@pytest.mark.parametrize("age_s", [301, -301, 86_400], ids=["stale", "from-the-future", "a-day-old-replay"])
def test_stale_or_future_timestamps_fail(age_s: int) -> None:
    headers = signed_headers(timestamp=int(time.time()) - age_s)
    assert not webhook_verify(SECRET, headers["X-DocGate-Timestamp"], BODY, headers["X-DocGate-Signature"])
    assert not readme_verify(SECRET, headers, BODY)


def test_any_of_several_signatures_may_match_and_only_v1_counts() -> None:
    ts = str(int(time.time()))
    good = webhook_sign(SECRET, ts, BODY)
    assert webhook_verify(SECRET, ts, BODY, f"v1={'0' * 64}, v1={good}")
    assert not webhook_verify(SECRET, ts, BODY, f"v0={good}")
    assert not webhook_verify(SECRET, "not-a-number", BODY, f"v1={good}")


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


@pytest.mark.parametrize(
    "url", ["https://93.184.216.34/hook", "https://93.184.216.34:8443/h?x=1", "https://[2606:2800:220:1::1946]/hook"]
)
def test_public_https_targets_are_accepted_without_a_network_call(settings: Any, url: str) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    webhook_url_check(url)


def test_a_host_with_any_internal_address_is_refused(settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = False
    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", 443)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 443)),
    ]
    with (
        mock.patch("contracts.webhooks.outbound.socket.getaddrinfo", return_value=answers),
        pytest.raises(WebhookUrlRefused, match=r"resolves to 10\.0\.0\.7\) is a private address"),
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
