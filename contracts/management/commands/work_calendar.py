"""Show how well the holiday calendar knows this year and the next, or load a year's official schedule."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from contracts.hotline.deadlines.calendar import calendar_coverage, calendar_years_load
from contracts.models import Organisation


class Command(BaseCommand):
    help = (
        "`status`: the current and next year as the calendar knows them. `load FILE.json`: store the years of a file "
        "in the format of rules/packs/cn_workdays.json (e.g. the State Council's notice for next year, status "
        "`official`) for every organisation, or those named with --organisation (versioned, audited)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["status", "load"])
        parser.add_argument("file", nargs="?", help="the calendar file (load)")
        parser.add_argument("--organisation", action="append", default=[], help="organisation slug (repeatable)")

    def handle(self, *args: Any, action: str, file: str | None, organisation: list[str], **options: Any) -> None:
        if action == "status":
            for year in calendar_coverage(timezone.localdate()):
                self.stdout.write(year.describe())
            return
        if not file:
            raise CommandError("load needs the calendar file")
        try:
            with open(file, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read {file}: {exc}") from exc
        organisations = Organisation.objects.all()
        if organisation:
            organisations = organisations.filter(slug__in=organisation)
            missing = set(organisation) - set(organisations.values_list("slug", flat=True))
            if missing:
                raise CommandError(f"no organisation with slug {sorted(missing)}")
        try:
            written = calendar_years_load(organisations=organisations, data=data)
        except ValueError as exc:
            raise CommandError(f"{file}: {exc}") from exc
        self.stdout.write(f"{written} calendar years written")
