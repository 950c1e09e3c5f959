"""The one shape of a refusal: an action DocGate will not do, for a reason the caller can act on."""

from __future__ import annotations


class Refused(Exception):
    """A refused action: a stable machine-readable `code`, a `message` for people and the HTTP `status` it maps to."""

    status: int = 400

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if status is not None:
            self.status = status
