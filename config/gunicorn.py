"""gunicorn's settings for DocGate's web server (`gunicorn -c python:config.gunicorn config.wsgi`).

gunicorn answers `Expect: 100-continue` with "100 Continue" before the application sees the request, so a client
announcing a body past the upload limit would be invited to send all of it before the 413. `pre_request` runs
just before that: for such a request it withholds the invitation and closes the connection after the answer, and
the application (`RequestBodyLimitMiddleware`) refuses it with its usual 413 without reading the body.
"""

from __future__ import annotations

from typing import Any


def pre_request(worker: Any, req: Any) -> None:
    """Withhold "100 Continue" from a request whose declared Content-Length is past the body limit."""
    worker.log.debug("%s %s", req.method, req.path)
    if not getattr(req, "_expected_100_continue", False):
        return
    # Imported here: the worker has loaded the application (and so Django's settings) before any request.
    from contracts.intake.body_limit import body_limit_bytes, content_length_declared

    raw = next((value for name, value in req.headers if name == "CONTENT-LENGTH"), None)
    try:
        length = content_length_declared(raw)
    except ValueError:
        length = None  # the application answers a malformed Content-Length with a 400 of its own
    if length is not None and length > body_limit_bytes():
        req._expected_100_continue = False  # gunicorn's own flag (gunicorn/http/wsgi.py `create`), read next
        req.force_close()  # the body is never read, so nothing after it on this connection can be
