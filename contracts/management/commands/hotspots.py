"""`manage.py hotspots FILE.jsonl [--top N] --json`: the hotspot analysis over a file of tickets, no database."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Literal

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from rules.tickets.hotspot_rows import ticket_rows
from rules.tickets.hotspots import WINDOWS, hotspot_json, hotspots_rank

MAX_ERRORS_SHOWN = 20


def _period(value: str) -> Literal["all", "latest"] | dt.date:
    if value == "all":
        return "all"
    if value == "latest":
        return "latest"
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--period must be all, latest or a date (2026-11-30), not {value!r}") from None


class Command(BaseCommand):
    help = (
        'Rank the hotspots of tickets in a JSON-lines file (rows {"id", "text", "time"}, optional "title", "likes", '
        '"against", "category", "place", "region", "urgency", "repeat") and print one JSON object '
        '{"hotspots": [...]}. A file with bad rows is refused, each bad line listed on stderr with what is wrong, '
        "unless --skip-invalid (then they are listed and left out)."
    )
    # A local analysis needs no database: the system checks (and their database lookups) are skipped.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("path", help="JSON lines, one ticket per line (UTF-8)")
        parser.add_argument("--top", type=int, default=10, help="how many hotspots (default 10)")
        parser.add_argument("--window", choices=WINDOWS, default="week", help="time window (default week)")
        parser.add_argument("--period", default="all", help="all windows, the latest, or the one holding a date")
        parser.add_argument("--min-tickets", type=int, default=2, help="fewest tickets that make a hotspot")
        parser.add_argument("--skip-invalid", action="store_true", help="leave bad rows out (listed on stderr)")
        parser.add_argument("--json", action="store_true", help="print JSON (the only output format)")

    def handle(self, *args: Any, path: str, top: int, window: Any, period: str, **options: Any) -> None:
        if top < 1 or options["min_tickets"] < 1:
            raise CommandError("--top and --min-tickets must be 1 or more")
        chosen = _period(period)
        try:
            with open(path, encoding="utf-8") as handle:
                tickets, errors = ticket_rows(handle)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
        for error in errors[:MAX_ERRORS_SHOWN]:
            self.stderr.write(f"{path}:{error.line}: {error.message}")
        if len(errors) > MAX_ERRORS_SHOWN:
            self.stderr.write(f"… and {len(errors) - MAX_ERRORS_SHOWN} more bad rows")
        if errors and not options["skip_invalid"]:
            raise CommandError(f"{len(errors)} bad row(s) in {path}: nothing analysed (--skip-invalid leaves them out)")
        if errors:
            self.stderr.write(f"skipped {len(errors)} bad row(s); analysing {len(tickets)}")
        report = hotspots_rank(
            tickets, window=window, top=top, period=chosen, min_tickets=options["min_tickets"], zone=settings.TIME_ZONE
        )
        out: dict[str, Any] = {
            "hotspots": [hotspot_json(h) for h in report.hotspots],
            "tickets": report.tickets,
            "window": report.window,
            "skipped": [{"line": e.line, "error": e.message} for e in errors],
        }
        self.stdout.write(json.dumps(out, ensure_ascii=False))
