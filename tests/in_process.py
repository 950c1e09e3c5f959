"""Serving the WSGI app in the test's own process (as Schemathesis does) inside the test's transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.core.signals import request_finished, request_started
from django.db import close_old_connections


@contextmanager
def connection_kept() -> Iterator[None]:
    """As Django's test client does: the test's transaction must survive the end of each request served through
    the WSGI app directly (Schemathesis calls it so)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
