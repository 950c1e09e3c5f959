"""What PostgreSQL's text and jsonb columns cannot hold: NUL (U+0000) and lone surrogates (which have no UTF-8)."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_character(value: object) -> str | None:
    """The first character in a JSON value (keys included, at any depth) that PostgreSQL cannot store; None."""
    if isinstance(value, str):
        found = _UNSTORABLE.search(value)
        return found.group() if found else None
    if isinstance(value, dict):
        items: list[object] = [part for pair in value.items() for part in pair]
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        return None
    return next((char for item in items if (char := unstorable_character(item)) is not None), None)


def json_storable(value: object) -> bool:
    """Whether every string in a JSON value (keys included, at any depth) can be stored by PostgreSQL."""
    return unstorable_character(value) is None


def unstorable_message(character: str, what: str | None = None) -> str:
    """Say in the active language which character (from unstorable_character) `what`, or this field, holds that
    cannot be stored."""
    if character == "\x00":
        if what is None:
            return _("This field contains a NUL character (U+0000), which cannot be stored.")
        return _("%(what)s contains a NUL character (U+0000), which cannot be stored.") % {"what": what}
    code = {"what": what, "code": ord(character)}
    if what is None:
        return (
            _("This field contains a lone surrogate (U+%(code)04X), which is not a character and cannot be stored.")
            % code
        )
    return _("%(what)s contains a lone surrogate (U+%(code)04X), which is not a character and cannot be stored.") % code
