"""One webhook attempt on the wire, bounded whatever the receiver does.

httpx's timeouts bound each read, not a request: a receiver answering one byte every few seconds, or sending an
endless body, would hold the worker for as long as it liked. Here an attempt has a deadline for everything after
the address is resolved — connecting, TLS, sending, the answer's headers and body (DOCGATE_WEBHOOK_TIMEOUT_S) — and
reads at most RESPONSE_EXCERPT_BYTES of an answer's body, only of an error (a 2xx is read no further than its
status line and headers, which h11 caps at 16 KiB).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx
from django.conf import settings

RESPONSE_EXCERPT_BYTES = 4096


class WebhookSendFailed(Exception):
    """The attempt got no answer: the message says why (the deadline, a refused connection, a broken answer)."""


@dataclass(frozen=True)
class WebhookAnswer:
    """What the receiver answered: its status and, for an error, the start of its body."""

    status_code: int
    excerpt: str = ""


class _AttemptDeadline:
    """Ends an attempt at its deadline whatever it waits for: the connection's socket is shut down (through a
    second handle on it, which also reaches a socket TLS has wrapped since), and a blocked read or write returns
    at once."""

    def __init__(self, seconds: float) -> None:
        self.expired = threading.Event()
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's `trace` extension: note each connection as it is made."""
        if event != "connection.connect_tcp.complete":
            return
        raw = info["return_value"].get_extra_info("socket")
        handle = socket.fromfd(raw.fileno(), raw.family, raw.type)
        with self._lock:
            self._sockets.append(handle)
            if self.expired.is_set():
                _shut(handle)

    def _expire(self) -> None:
        with self._lock:
            self.expired.set()
            for handle in self._sockets:
                _shut(handle)

    def __enter__(self) -> _AttemptDeadline:
        self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            for handle in self._sockets:
                handle.close()  # our handle only: httpx closes the connection itself
            self._sockets.clear()


def _shut(handle: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: nothing left to wake
        handle.shutdown(socket.SHUT_RDWR)


def _excerpt(response: httpx.Response, deadline: float) -> str:
    """The start of an error answer's body (raw bytes: a compressed body is not inflated), until the cap or the
    deadline, whichever comes first; an answer cut short keeps what arrived."""
    read = b""
    try:
        for chunk in response.iter_raw(RESPONSE_EXCERPT_BYTES):
            read += chunk
            if len(read) >= RESPONSE_EXCERPT_BYTES or time.monotonic() >= deadline:
                break
    except httpx.HTTPError:
        pass
    return read[:RESPONSE_EXCERPT_BYTES].decode("utf-8", errors="replace")


def webhook_post(url: str, *, body: bytes, headers: dict[str, str], extensions: dict[str, Any]) -> WebhookAnswer:
    """POST one attempt, redirects not followed, within DOCGATE_WEBHOOK_TIMEOUT_S (connecting within
    DOCGATE_WEBHOOK_CONNECT_TIMEOUT_S of it); raise WebhookSendFailed when no answer came in time."""
    total_s = float(settings.DOCGATE_WEBHOOK_TIMEOUT_S)
    timeout = httpx.Timeout(total_s, connect=min(float(settings.DOCGATE_WEBHOOK_CONNECT_TIMEOUT_S), total_s))
    deadline = time.monotonic() + total_s
    with (
        _AttemptDeadline(total_s) as watch,
        httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client,
    ):
        try:
            sent = client.stream(
                "POST", url, content=body, headers=headers, extensions={**extensions, "trace": watch.trace}
            )
            with sent as response:
                if 200 <= response.status_code < 300:
                    return WebhookAnswer(response.status_code)
                return WebhookAnswer(response.status_code, _excerpt(response, deadline))
        except httpx.HTTPError as exc:
            if watch.expired.is_set() or isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout):
                raise WebhookSendFailed(f"no complete answer within {total_s:g} s (DOCGATE_WEBHOOK_TIMEOUT_S)") from exc
            raise WebhookSendFailed(f"{type(exc).__name__}: {exc}") from exc
