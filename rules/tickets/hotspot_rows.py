"""Ticket rows for the hotspot analysis from JSON lines, each refused with its line number and what is wrong."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rules.tickets.hotspots import HotspotTicket

OPTIONAL_TEXT = ("title", "category", "place", "region")
OPTIONAL_COUNTS = ("likes", "against")
KNOWN_KEYS = frozenset({"id", "text", "time", "urgency", "repeat", *OPTIONAL_TEXT, *OPTIONAL_COUNTS})


@dataclass(frozen=True)
class RowError:
    """A line that is not a ticket row: its number (from 1) and why."""

    line: int
    message: str


def _text(row: dict[str, Any], key: str) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key!r} must be a string")
    return value.strip() or None


def _count(row: dict[str, Any], key: str) -> int:
    value = row.get(key, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key!r} must be a whole number of 0 or more, not {value!r}")
    return value


def _time(value: Any) -> dt.datetime:
    if not isinstance(value, str) or not value.strip():
        raise ValueError("'time' is missing: an ISO 8601 date and time such as 2026-11-30T09:15:00+08:00")
    try:
        return dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"'time' {value!r} is not an ISO 8601 date and time") from None


def ticket_row(row: Any) -> HotspotTicket:
    """One row as a ticket; raises ValueError saying what is wrong with it."""
    if not isinstance(row, dict):
        raise ValueError("a row must be a JSON object")
    unknown = sorted(set(row) - KNOWN_KEYS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))}")
    ticket_id = row.get("id")
    if isinstance(ticket_id, bool) or not isinstance(ticket_id, str | int) or not str(ticket_id).strip():
        raise ValueError("'id' is missing: a non-empty string or number")
    text = row.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ValueError("'text' is missing or empty")
    urgency = _text(row, "urgency")
    if urgency not in (None, "normal", "high", "urgent"):
        raise ValueError(f"'urgency' must be normal, high or urgent, not {urgency!r}")
    repeat = row.get("repeat", False)
    if not isinstance(repeat, bool):
        raise ValueError("'repeat' must be true or false")
    return HotspotTicket(
        id=str(ticket_id).strip(),
        text=text,
        time=_time(row.get("time")),
        title=_text(row, "title") or "",
        likes=_count(row, "likes"),
        against=_count(row, "against"),
        category=_text(row, "category"),
        place=_text(row, "place"),
        region=_text(row, "region"),
        urgency=urgency,
        repeat=repeat,
    )


def ticket_rows(lines: Iterable[str]) -> tuple[list[HotspotTicket], list[RowError]]:
    """The tickets of JSON lines and the lines that are not tickets (blank lines are neither); an id seen before
    is an error on the later line."""
    tickets: list[HotspotTicket] = []
    errors: list[RowError] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            ticket = ticket_row(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(RowError(number, f"not JSON: {exc.msg} at column {exc.colno}"))
            continue
        except ValueError as exc:
            errors.append(RowError(number, str(exc)))
            continue
        if ticket.id in seen:
            errors.append(RowError(number, f"id {ticket.id!r} already used on line {seen[ticket.id]}"))
            continue
        seen[ticket.id] = number
        tickets.append(ticket)
    return tickets, errors
