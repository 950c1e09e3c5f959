"""The holiday calendar a ticket's working days are counted on: the pack `cn_workdays.json`, with the years an
organisation loaded itself (the State Council's notice, published each autumn for the next year) in place of the
pack's. Organisation data, versioned and audited like its department table; a year the calendar lacks, or holds
with statutory days only, is reported by `manage.py migrate` and `check --database default` (docgate.W012) and
/readyz (`work_calendar`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from contracts.models import Organisation
from contracts.versioned_data import VersionedData, versioned_save
from rules.tickets.work_calendar import (
    OFFICIAL,
    STATUTORY_ONLY,
    CalendarYear,
    WorkCalendar,
    calendar_of,
    calendar_year_parse,
    calendar_years_parse,
    load_calendar,
)

AUDIT_CHANGED = "work_calendar_year.changed"
logger = logging.getLogger(__name__)


class WorkCalendarYear(VersionedData):
    """An organisation's holidays and make-up working days of one year, replacing the pack's year for it."""

    class Status(models.TextChoices):
        OFFICIAL = OFFICIAL, "official (the State Council's notice)"
        STATUTORY_ONLY = STATUTORY_ONLY, "statutory holidays only"

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="work_calendar_years")
    year = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OFFICIAL)
    holidays = models.JSONField(default=list, blank=True, help_text='[{"name": "春节", "from": "…", "to": "…"}]')
    workdays = models.JSONField(default=list, blank=True, help_text='make-up working days: [{"name", "date"}]')
    source = models.CharField(max_length=300, blank=True, help_text="the notice it copies")

    class Meta:
        app_label = "contracts"
        constraints = [models.UniqueConstraint(fields=["organisation", "year"], name="one_calendar_per_year")]
        ordering = ["organisation", "year"]

    def __str__(self) -> str:
        return f"{self.year} ({self.status})"

    def parsed(self) -> CalendarYear:
        """The year as the rules read it; ValueError when malformed."""
        entry = {"status": self.status, "holidays": self.holidays, "workdays": self.workdays, "source": self.source}
        return calendar_year_parse(self.year, entry)

    def clean(self) -> None:
        """Refuse what the rules would refuse (a bad date, a weekday make-up working day, a day listed twice)."""
        try:
            self.parsed()
        except ValueError as exc:
            raise ValidationError({"holidays": str(exc)}) from exc

    def snapshot(self) -> dict[str, Any]:
        """What the audit log keeps of a version."""
        return {
            "year": self.year,
            "status": self.status,
            "holidays": self.holidays,
            "workdays": self.workdays,
            "source": self.source,
            "version": self.version,
        }


def work_calendar(organisation: Organisation | int) -> WorkCalendar:
    """The organisation's calendar: the pack, with the years it loaded itself in their place."""
    pack = load_calendar()
    years: list[CalendarYear] = []
    for row in WorkCalendarYear.objects.filter(organisation=organisation):
        try:
            years.append(row.parsed())
        except ValueError:  # saved rows are validated; one changed behind the service's back is left out, loudly
            logger.exception("organisation %s: ignoring its malformed calendar year %s", row.organisation_id, row.year)
    if not years:
        return pack
    version = f"{pack.version}+org." + ".".join(f"{entry.year}{entry.status[0]}" for entry in years)
    return calendar_of(version, [*pack.entries.values(), *years])


def calendar_years_load(*, organisations: Iterable[Organisation], data: Mapping[str, Any], user: Any = None) -> int:
    """Store each year of a calendar file (the pack's format) for each organisation, created or changed
    (versioned, audited); the rows written. A malformed file (ValueError) is refused before anything is stored."""
    years = calendar_years_parse(data)
    written = 0
    with transaction.atomic():
        for organisation in organisations:
            for parsed in years:
                entry = data["years"][str(parsed.year)]
                row = WorkCalendarYear.objects.filter(organisation=organisation, year=parsed.year).first()
                row = row or WorkCalendarYear(organisation=organisation, year=parsed.year)
                row.status, row.source = parsed.status, parsed.source[:300]
                row.holidays, row.workdays = list(entry["holidays"]), list(entry["workdays"])
                versioned_save(row, user=user, action=AUDIT_CHANGED)
                written += 1
    return written


@dataclass(frozen=True)
class YearCoverage:
    """How well the calendar knows a year: the pack's status, and how many organisations loaded it officially."""

    year: int
    pack_status: str | None
    organisations: int
    official_organisations: int

    @property
    def complete(self) -> bool:
        return self.pack_status == OFFICIAL or (0 < self.organisations == self.official_organisations)

    def describe(self) -> str:
        if self.complete:
            return f"{self.year}: official"
        known = "no holidays listed" if self.pack_status is None else "statutory holidays only (no 调休, no 补假)"
        loaded = f"; {self.official_organisations} of {self.organisations} organisations loaded the official schedule"
        return f"{self.year}: {known}{loaded if self.organisations else ''}"


def pack_coverage(today: date) -> list[YearCoverage]:
    """The current and the next year as the pack alone knows them (no database)."""
    pack = load_calendar()
    return [YearCoverage(year, pack.year_status(year), 0, 0) for year in (today.year, today.year + 1)]


def calendar_coverage(today: date) -> list[YearCoverage]:
    """The current and the next year as the calendar knows them (one query)."""
    pack = load_calendar()
    wanted = (today.year, today.year + 1)
    organisations = Organisation.objects.count()
    official = dict(
        WorkCalendarYear.objects.filter(year__in=wanted, status=OFFICIAL)
        .values_list("year")
        .annotate(n=models.Count("organisation", distinct=True))
    )
    return [
        YearCoverage(
            year=year,
            pack_status=pack.year_status(year),
            organisations=organisations,
            official_organisations=official.get(year, 0),
        )
        for year in wanted
    ]
