"""Request bodies and the upload limit: a chunked body (no Content-Length) is cut off while it is read, and a
malformed Content-Length is a clear 400, on the API and on the portal's upload alike."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from tests.api.test_hostile_inputs import assert_refused
from tests.api.test_intake import URL, assert_nothing_stored

pytestmark = pytest.mark.django_db

PORTAL_UPLOAD = "/submit/upload/"
BOUNDARY = "docgate-test-boundary"
CHUNK = 64 * 1024


class ChunkedInput:
    """A request body as gunicorn hands a chunked one to the app (de-chunked, read until empty); counts the bytes
    the app took from it."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = b""
        self.consumed = 0
        self.exhausted = False

    def _fill(self, size: int) -> None:
        while not self.exhausted and (size < 0 or len(self._buffer) < size):
            chunk = next(self._chunks, None)
            if chunk is None:
                self.exhausted = True
            else:
                self._buffer += chunk

    def read(self, size: int = -1) -> bytes:
        self._fill(size)
        taken = self._buffer if size < 0 else self._buffer[:size]
        self._buffer = self._buffer[len(taken) :]
        self.consumed += len(taken)
        return taken

    def readline(self, size: int = -1) -> bytes:
        self._fill(size if size >= 0 else CHUNK)
        end = self._buffer.find(b"\n") + 1 or len(self._buffer)
        return self.read(min(end, size) if size >= 0 else end)


def multipart_chunks(file_bytes: int) -> Iterator[bytes]:
    """A multipart contract upload whose text file has about `file_bytes` bytes (whole lines of UTF-8), produced
    lazily in pieces of at most 64 KiB."""
    yield f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="kind"\r\n\r\ncontract\r\n'.encode()
    yield (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    line = "第一条 合同期限为一年。\n".encode()
    lines = max(file_bytes // len(line), 1)
    per_piece = CHUNK // len(line)
    for start in range(0, lines, per_piece):
        yield line * min(per_piece, lines - start)
    yield f"\r\n--{BOUNDARY}--\r\n".encode()


def chunked_post(client: Any, path: str, body: ChunkedInput) -> Any:
    """POST with Transfer-Encoding: chunked and no Content-Length, in the environ gunicorn builds for one."""
    content_type = f"multipart/form-data; boundary={BOUNDARY}"  # as an argument for DRF's client, in the environ
    return client.generic(  # for Django's (which sets it only along with a body)
        "POST",
        path,
        b"",
        content_type=content_type,
        CONTENT_TYPE=content_type,
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": body, "wsgi.input_terminated": True},
    )


@pytest.fixture
def portal(actors: Any) -> Client:
    """Alice, signed in to the portal."""
    client = Client()
    client.force_login(actors.alice)
    return client


@pytest.fixture(params=["api", "portal"])
def uploader(request: pytest.FixtureRequest, actors: Any) -> tuple[Any, str]:
    """The API (Acme's key) or the portal (Alice signed in), with the path each uploads to."""
    if request.param == "api":
        return request.getfixturevalue("acme_api"), URL
    return request.getfixturevalue("portal"), PORTAL_UPLOAD


def test_a_chunked_upload_past_the_limit_is_a_413_and_is_not_read_to_the_end(
    uploader: tuple[Any, str], settings: Any
) -> None:
    client, path = uploader
    body = ChunkedInput(multipart_chunks(50 * 1024 * 1024))
    tracemalloc.start()
    try:
        response = chunked_post(client, path, body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_refused(response, 413, "file_too_large")
    assert not body.exhausted
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE < body.consumed <= settings.DATA_UPLOAD_MAX_MEMORY_SIZE + CHUNK
    assert peak < 8 * 1024 * 1024, f"{peak} bytes held while refusing a 50 MiB body"
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_a_chunked_upload_within_the_limit_is_accepted(uploader: tuple[Any, str]) -> None:
    client, path = uploader
    body = ChunkedInput(multipart_chunks(3 * 1024 * 1024))
    response = chunked_post(client, path, body)
    assert response.status_code == 201, response.content[:500]
    assert body.exhausted


@pytest.mark.parametrize(
    "length",
    ["abc", "-5", "12, 13", "1e3", "+12", "１２"],
    ids=["letters", "negative", "two-values", "float", "sign", "wide-digits"],
)
def test_a_malformed_content_length_is_a_400_with_a_clear_error(uploader: tuple[Any, str], length: str) -> None:
    client, path = uploader
    body = b"".join(multipart_chunks(100))
    response = client.generic(
        "POST", path, body, content_type=f"multipart/form-data; boundary={BOUNDARY}", CONTENT_LENGTH=length
    )
    error = assert_refused(response, 400, "invalid_content_length")
    assert "Content-Length" in error["message"]


def test_a_declared_length_past_the_limit_is_a_413_before_any_byte_is_read(
    uploader: tuple[Any, str], settings: Any
) -> None:
    client, path = uploader
    body = ChunkedInput(multipart_chunks(50 * 1024 * 1024))
    content_type = f"multipart/form-data; boundary={BOUNDARY}"
    response = client.generic(
        "POST",
        path,
        b"",
        content_type=content_type,
        CONTENT_TYPE=content_type,
        CONTENT_LENGTH=str(50 * 1024 * 1024),
        **{"wsgi.input": body},
    )
    assert_refused(response, 413, "file_too_large")
    assert body.consumed == 0
    assert_nothing_stored(settings.MEDIA_ROOT)
