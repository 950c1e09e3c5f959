"""What PostgreSQL's text and jsonb columns cannot hold: NUL (U+0000) and lone surrogates (which have no UTF-8)."""

from __future__ import annotations

import re

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
UNSTORABLE_MESSAGE = "must not contain NUL characters or lone surrogates"


def json_storable(value: object) -> bool:
    """Whether every string in a JSON value (keys included, at any depth) can be stored by PostgreSQL."""
    if isinstance(value, str):
        return _UNSTORABLE.search(value) is None
    if isinstance(value, dict):
        return all(json_storable(key) and json_storable(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return all(json_storable(item) for item in value)
    return True
