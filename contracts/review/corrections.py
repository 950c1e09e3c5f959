"""What a reviewer's correction of a finding may change: the finding stays a finding of its kind, within the text."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _
from pydantic import ValidationError

from contracts.findings import FINDING
from contracts.storable import unstorable_character, unstorable_message

PROTECTED_FINDING_FIELDS = frozenset({"id", "review", "review_note", "original"})
MAX_CORRECTION_CHARS = 10_000


def correction_problem(corrected: Any, finding: dict[str, Any], text_length: int) -> str | None:
    """What is wrong with `corrected` as a partial finding correcting `finding` (the corrected finding must still
    be a `contracts.findings.Finding` of its kind), in the active language; None when nothing is."""
    if not isinstance(corrected, dict) or not corrected:
        return _("`corrected` must be a non-empty object of finding fields.")
    touched = sorted(PROTECTED_FINDING_FIELDS & corrected.keys())
    if touched:
        return _("These fields cannot be corrected: %(fields)s.") % {"fields": ", ".join(touched)}
    if (character := unstorable_character(corrected)) is not None:
        return unstorable_message(character, "`corrected`")
    if len(json.dumps(corrected, ensure_ascii=False)) > MAX_CORRECTION_CHARS:
        return _("`corrected` is larger than %(n)s characters.") % {"n": MAX_CORRECTION_CHARS}
    span = corrected.get("span")
    if span is not None and not (
        isinstance(span, list)
        and len(span) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in span)
        and 0 <= span[0] <= span[1] <= text_length
    ):
        return _("`span` must be [start, end] within the text (0..%(n)s).") % {"n": text_length}
    try:
        FINDING.validate_python({**finding, **corrected})
    except ValidationError as exc:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc'][1:])) or e['loc'][0]}: {e['msg']}" for e in exc.errors()[:5])
        return _("The corrected finding is not a valid %(kind)s: %(errors)s.") % {
            "kind": finding.get("kind"),
            "errors": wrong,
        }
    return None
