"""The embedded broker's file transport: a message appears whole or not at all, and a file that does not decode
costs a warning, never the worker."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection
from kombu.transport import filesystem

from contracts.operations.file_transport import Transport


# kombu keeps the queues a process declared in state shared by every connection of the transport, whatever its
# folders: each test declares a queue of its own.
def _queue_name() -> str:
    return f"jobs-{uuid.uuid4().hex[:8]}"


def _connection(folder: Path, transport: Any) -> Connection:
    (folder / "queue").mkdir(exist_ok=True)
    (folder / "control").mkdir(exist_ok=True)
    options = {"data_folder_in": str(folder / "queue"), "data_folder_out": str(folder / "queue"),
               "control_folder": str(folder / "control")}  # fmt: skip
    return Connection("filesystem://", transport=transport, transport_options=options)


def test_a_message_file_half_written_by_another_writer_is_dropped_and_the_next_one_read(tmp_path: Path) -> None:
    """What kombu's own writer leaves between creating a message file and writing it: an empty `.msg` file. kombu's
    reader raises on it (the worker stops); DocGate's drops it and delivers the message behind it."""
    name = _queue_name()
    with _connection(tmp_path, Transport) as connection:
        queue = connection.SimpleQueue(name)
        (tmp_path / "queue" / f"0_half-written.{name}.msg").write_bytes(b"")
        queue.put({"job": "after"})
        message = queue.get(timeout=2)
        assert message.payload == {"job": "after"}
        message.ack()
        queue.close()
    (tmp_path / "queue" / f"0_half-written.{name}.msg").write_bytes(b"")
    with _connection(tmp_path, filesystem.Transport) as connection:
        queue = connection.SimpleQueue(name)
        with pytest.raises(ValueError):
            queue.get(timeout=2)
        queue.close()


def test_messages_put_while_a_reader_polls_arrive_whole_and_once(tmp_path: Path) -> None:
    """A writer and a reader on one folder, as the web and a worker: every message is read once, none half."""
    count, payload = 400, "工单" * 20_000  # 120 KB each: a write the reader can catch in the middle
    received: list[int] = []
    errors: list[BaseException] = []
    name = _queue_name()

    def read() -> None:
        try:
            with _connection(tmp_path, Transport) as connection:
                queue = connection.SimpleQueue(name)
                while len(received) < count:
                    message = queue.get(timeout=20)
                    assert message.payload["text"] == payload
                    received.append(message.payload["n"])
                    message.ack()
                queue.close()
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    reader = threading.Thread(target=read)
    with _connection(tmp_path, Transport) as connection:
        queue = connection.SimpleQueue(name)
        reader.start()
        for n in range(count):
            queue.put({"n": n, "text": payload})
        reader.join(60)
        queue.close()
    assert not errors, errors
    assert sorted(received) == list(range(count))
    assert not [p.name for p in (tmp_path / "queue").iterdir()], "no partial or unread file left"
