"""A reviewer's reply, checked as a drafted one is before it goes out (the desk's `response_check`): the review page
and the API show what it lacks, so that an edited reply is as fit to send as a suggested one."""

from __future__ import annotations

from typing import Any

from contracts.desks import desk_for
from contracts.models import ReviewTask
from rules.normalize import normalize


def review_response_problems(task: ReviewTask) -> list[dict[str, Any]]:
    """Why the task's current response text is not fit to send (empty: it is, or there is none to send)."""
    if not task.response_text.strip():
        return []  # nothing goes out: the reviewer withholds the response
    document = task.document
    latest = document.latest_result()
    findings = list((latest.data or {}).get("findings") or []) if latest is not None else []
    desk = desk_for(document.kind)
    source = normalize(document.text).text
    return desk.response_check(task.response_text, findings, source=source, organisation=document.organisation)
