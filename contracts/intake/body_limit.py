"""Request bodies within the upload limit, checked before any view, parser or the CSRF check reads them.

A declared Content-Length must be one whole number of ASCII digits (a 400 otherwise) and within the limit (a 413).
A chunked body has no length to check, and Django's WSGI request would read none of it, so it is read here, in
pieces, into a spooled file (memory up to FILE_UPLOAD_MAX_MEMORY_SIZE, disk beyond) and refused with a 413 as soon
as it passes the limit: never more than the limit and one piece is read.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from typing import IO, BinaryIO, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

READ_BYTES = 64 * 1024
_DIGITS = re.compile(r"[0-9]+")


def body_limit_bytes() -> int:
    """The most a request body may carry: the upload limit plus room for multipart framing."""
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def content_length_declared(raw: str | None) -> int | None:
    """The Content-Length as a number, None when there is none; ValueError when it is not one plain number."""
    if raw is None or raw == "":
        return None
    if not _DIGITS.fullmatch(raw):
        raise ValueError(raw)
    return int(raw)


def body_spooled(stream: IO[bytes], limit: int) -> tuple[IO[bytes], int] | None:
    """Read a body of unknown length into a spooled file and return it rewound with its size; None (having read
    at most `limit` + 1 bytes) when it is larger than `limit`."""
    # Not a `with`: the spool outlives this function (the caller serves the request from it, then closes it).
    spool = tempfile.SpooledTemporaryFile(max_size=int(settings.FILE_UPLOAD_MAX_MEMORY_SIZE))  # noqa: SIM115
    size = 0
    while piece := stream.read(min(READ_BYTES, limit + 1 - size)):
        size += len(piece)
        if size > limit:
            spool.close()
            return None
        spool.write(piece)
    spool.seek(0)
    return spool, size


def _refusal(code: str, message: str, status: int) -> JsonResponse:
    # As DRF renders the API's other errors: the message's own characters, not \u escapes.
    return JsonResponse(
        {"error": {"code": code, "message": message}}, status=status, json_dumps_params={"ensure_ascii": False}
    )


def _too_large() -> JsonResponse:
    message = _("The file exceeds the limit of %(n)s bytes.") % {"n": settings.DOCGATE_MAX_UPLOAD_BYTES}
    return _refusal("file_too_large", message, 413)


class RequestBodyLimitMiddleware:
    """Refuse a malformed Content-Length (400) or a body past the limit (413) before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = content_length_declared(request.META.get("CONTENT_LENGTH"))
        except ValueError:
            message = _("The Content-Length header must be one whole number of bytes.")
            return _refusal("invalid_content_length", message, 400)
        if length is not None and length > body_limit_bytes():
            return _too_large()
        if length is not None or not self._chunked_and_terminated(request):
            return self.get_response(request)
        spooled = body_spooled(request.META["wsgi.input"], body_limit_bytes())
        if spooled is None:
            return _too_large()
        body, size = spooled
        # The WSGI request took Content-Length as 0 and so would read nothing; its stream is replaced (Django has
        # no public way to do this) by the spooled body, which ends where it should, and parsers get its length.
        request.META["CONTENT_LENGTH"] = str(size)
        request._stream = cast(BinaryIO, body)
        with body:
            return self.get_response(request)

    @staticmethod
    def _chunked_and_terminated(request: HttpRequest) -> bool:
        """A chunked body the server has de-chunked and ends (gunicorn: `wsgi.input_terminated`), so that reading
        it to its end cannot hang on the socket."""
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        return chunked and bool(request.META.get("wsgi.input_terminated"))
