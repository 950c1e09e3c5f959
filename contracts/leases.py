"""Leases kept alive while work runs: a thread renews the lease, so slow work keeps it and dead work loses it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)


@contextmanager
def lease_renewed(renew: Callable[[], bool], *, interval_s: float, what: str) -> Iterator[None]:
    """Call `renew` every `interval_s` while the block runs (a thread with its own database connection); `renew`
    returns False when the lease is no longer ours, which ends the renewing. A killed or frozen process renews
    nothing, so its lease still runs out and others take the work over."""
    stop = threading.Event()

    def keep() -> None:
        try:
            while not stop.wait(interval_s):
                if not renew():
                    return  # taken over or finished: the work's own write will find out
        except DatabaseError:
            logger.warning("%s: the lease could not be renewed", what, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=keep, name=f"lease-{what}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
