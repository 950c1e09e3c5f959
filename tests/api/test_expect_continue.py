"""`Expect: 100-continue` on the real web server (gunicorn, started as runstack starts it): an upload declaring a
Content-Length past the limit is answered 413 before its body is sent, and the connection is closed; one within
the limit is still invited to send its body."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts.operations.processes import web_command
from tests.workers import ROOT, process_group_stop, wait_until

MIB = 1024 * 1024
OVER_LIMIT = 12 * MIB  # the default limit is 10 MiB and 1 MiB of multipart framing


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def web_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """gunicorn serving DocGate (one worker, embedded defaults) on a free port."""
    folder = tmp_path_factory.mktemp("expect-continue")
    port = _free_port()
    env = {**os.environ, "DOCGATE_DATA_DIR": str(folder), "DATABASE_URL": "", "REDIS_URL": ""}
    log_path = folder / "gunicorn.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            web_command(bind=f"127.0.0.1:{port}", workers=1),
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        assert wait_until(lambda: _answers(port), timeout_s=90), Path(log_path).read_text(errors="replace")[-3000:]
        yield port
    finally:
        process_group_stop(process, grace_s=10)


def _head(length: int) -> bytes:
    return (
        "POST /api/v1/documents/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: en\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\nExpect: 100-continue\r\n\r\n"
    ).encode()


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout fails the test)."""
    received = b""
    while piece := sock.recv(65536):
        received += piece
    return received


def test_an_upload_past_the_limit_is_refused_before_its_body_is_sent(web_port: int) -> None:
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        sock.sendall(_head(OVER_LIMIT))
        answer = _read_until_closed(sock)  # not one byte of the body was sent
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 413 Request Entity Too Large", answer[:300]
    assert b"100 Continue" not in answer
    assert b"connection: close" in head.lower()
    # DocGate's own refusal (chunked: it comes from a middleware, before anything sets a length), in English.
    assert b'{"error": {"code": "file_too_large", "message": "The file exceeds the limit of 10485760 bytes."}}' in body


def test_an_upload_within_the_limit_is_still_invited_to_send_its_body(web_port: int) -> None:
    body = json.dumps({"kind": "ticket", "text": "拖欠工资三个月"}).encode()
    with socket.create_connection(("127.0.0.1", web_port), timeout=10) as sock:
        sock.sendall(_head(len(body)))
        invited = sock.recv(64)
        sock.sendall(body)
        answer = invited + _read_until_closed(sock)
    # Invited first; then answered as any request without credentials (DRF's check needs no body).
    assert answer.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 401 Unauthorized\r\n"), answer[:300]
