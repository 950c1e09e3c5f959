"""The embedded broker's transport: kombu's file-system transport, with messages that appear whole.

kombu's transport writes a message file in place under its final name (it locks the file, but readers do not take
the lock), so a worker that lists the folder between the file's creation and its write moves away an empty file,
fails to decode it and stops ("Unrecoverable error: JSONDecodeError"): with a worker per queue polling every 0.2 s
(`make run`), one died within a minute of a mixed batch of tickets and scans. Here a message is written under a
name no reader takes (a leading dot, a `.part` suffix) and renamed into place, which is atomic within one folder;
and a file that still does not decode (written by another program, a full disk) is dropped with a warning instead
of stopping the worker: the database row it was about stays, and the sweeper sends it again.
"""

from __future__ import annotations

import contextlib
import logging
import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

logger = logging.getLogger(__name__)


class Channel(filesystem.Channel):
    """A channel whose messages are renamed into place whole, and whose reader skips one that does not decode."""

    def _put(self, queue: Any, message: Any, **kwargs: Any) -> Any:  # type: ignore[override]  # kombu names it both ways
        """Put `message` onto `queue`: write it beside the queue under a hidden name, then rename it into place."""
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(message)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: Any, timeout: Any = None) -> Any:
        """Get the next message from `queue`, dropping (with a warning) any file before it that does not decode."""
        while True:
            try:
                return super()._get(queue)
            except ValueError:  # json's decode error; kombu has already taken the file off the queue
                logger.warning(
                    "a message file in the queue %r did not decode and was dropped; the sweeper sends its job again",
                    queue,
                )


class Transport(filesystem.Transport):
    """kombu's file-system transport with `Channel` above (`CELERY_BROKER_TRANSPORT`)."""

    Channel = Channel
