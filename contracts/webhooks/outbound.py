"""Where DocGate sends webhooks: outbound targets vetted against SSRF (signatures live in `signing`).

A webhook URL must be HTTPS to a public address (unless DOCGATE_WEBHOOK_ALLOW_PRIVATE); the addresses its host
resolves to are checked, and the request is pinned to the checked address so that a second DNS answer cannot
redirect it inside the network.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop


class WebhookConfigError(ValueError):
    """A webhook configuration DocGate refuses; the message says why."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable


class WebhookUrlRefused(WebhookConfigError):
    """A webhook target DocGate will not call (not HTTPS, or an internal address); `retryable` for DNS failures."""


def _allow_private() -> bool:
    return bool(settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE)


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
        (gettext_noop("loopback"), ip.is_loopback),
        (gettext_noop("link-local"), ip.is_link_local),
        (gettext_noop("unspecified"), ip.is_unspecified),
        (gettext_noop("multicast"), ip.is_multicast),
        (gettext_noop("reserved"), ip.is_reserved),
        (gettext_noop("private"), ip.is_private),
        (gettext_noop("not globally routable"), not ip.is_global),
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
        raise WebhookUrlRefused(_("The webhook URL is malformed: %(error)s.") % {"error": exc}) from exc
    if parts.scheme != "https" and not (allow_private and parts.scheme == "http"):
        raise WebhookUrlRefused(_("The webhook URL must use https://."))
    if not parts.hostname:
        raise WebhookUrlRefused(_("The webhook URL has no host."))
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlRefused(_("The webhook URL must not contain credentials; use the signing secret instead."))
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookUrlRefused(
            _("The webhook host %(host)s cannot be resolved.") % {"host": parts.hostname}, retryable=True
        ) from exc
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise WebhookUrlRefused(
            _("The webhook host %(host)s cannot be resolved.") % {"host": parts.hostname}, retryable=True
        )
    if not allow_private:
        # Every address counts: a host answering with one public and one internal address is refused.
        for address in addresses:
            refusal = _address_refusal(address)
            if refusal:
                where = (
                    address
                    if address == parts.hostname
                    else _("%(host)s (resolves to %(address)s)") % {"host": parts.hostname, "address": address}
                )
                raise WebhookUrlRefused(
                    _(
                        "The webhook target %(where)s is a %(kind)s address; "
                        "webhooks go only to public internet addresses."
                    )
                    % {"where": where, "kind": _(refusal)}
                )
    return WebhookTarget(url=urlunsplit(parts), host=parts.hostname, port=port, addresses=addresses)


def webhook_url_check(url: str) -> None:
    """Raise WebhookUrlRefused unless the URL is HTTPS and its host resolves only to public addresses."""
    webhook_target(url)


def pinned_request(target: WebhookTarget) -> tuple[str, dict[str, str], dict[str, Any]]:
    """Address the vetted IP directly (no second DNS lookup to rebind), with the real host for Host and TLS."""
    parts = urlsplit(target.url)
    address = target.addresses[0]
    literal = f"[{address}]" if ":" in address else address
    pinned = urlunsplit(parts._replace(netloc=f"{literal}:{target.port}"))
    host_header = parts.netloc.rsplit("@", 1)[-1]
    extensions = {"sni_hostname": target.host} if parts.scheme == "https" else {}
    return pinned, {"Host": host_header}, extensions
