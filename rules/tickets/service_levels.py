"""A ticket's time limit: its service-level tier (from category and urgency) and when it falls due, counting
working days on a holiday calendar (`ticket_service_levels.json`, `cn_workdays.json`: data, not code)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from functools import lru_cache
from pathlib import Path
from typing import Literal, cast

from rules.tickets.taxonomy import PACKS_DIR
from rules.tickets.work_calendar import WorkCalendar, load_calendar

SERVICE_LEVELS_PATH = PACKS_DIR / "ticket_service_levels.json"
UNITS = ("hours", "working_days")
MAX_COUNTED_DAYS = 3660  # a limit longer than ten years of calendar days is a mistake in the data
Unit = Literal["hours", "working_days"]


@dataclass(frozen=True)
class Tier:
    """One service level: its time limit in hours (day and night) or in working days."""

    name: str
    limit: int
    unit: Unit
    label: str = ""


@dataclass(frozen=True)
class TierRule:
    """Tickets of this tier: an urgency level, or a category named at level 2 or 3 (any one condition holds)."""

    rule_id: str
    tier: str
    urgency: frozenset[str]
    level2: frozenset[str]
    level3: frozenset[str]

    def matches(self, *, urgency: str | None, level2: str | None, level3: str | None) -> bool:
        return urgency in self.urgency or level2 in self.level2 or level3 in self.level3


@dataclass(frozen=True)
class ServiceLevels:
    """The pack: tiers by name, the rules choosing one (first match wins) and the tier of everything else."""

    version: str
    tiers: Mapping[str, Tier]
    rules: tuple[TierRule, ...]
    default_tier: str

    def tier_for(self, *, urgency: str | None, level2: str | None, level3: str | None) -> tuple[Tier, str | None]:
        """The ticket's tier and the id of the rule that chose it (None: the default tier)."""
        for rule in self.rules:
            if rule.matches(urgency=urgency, level2=level2, level3=level3):
                return self.tiers[rule.tier], rule.rule_id
        return self.tiers[self.default_tier], None


@dataclass(frozen=True)
class Deadline:
    """When a ticket falls due, and from when it counts as due soon (`share` of its allowed time left)."""

    tier: Tier
    rule_id: str | None
    due_at: datetime
    due_soon_at: datetime


def tier_parse(name: str, entry: Mapping[str, object]) -> Tier:
    """A tier from its pack entry (or an organisation's override); ValueError for a bad limit or unit."""
    limit, unit = entry.get("limit"), entry.get("unit")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        raise ValueError(f"tier {name}: limit must be a positive whole number, not {limit!r}")
    if unit not in UNITS:
        raise ValueError(f"tier {name}: unit must be one of {UNITS}, not {unit!r}")
    return Tier(name=name, limit=limit, unit=cast(Unit, unit), label=str(entry.get("label") or name))


@lru_cache(maxsize=2)
def load_service_levels(path: Path = SERVICE_LEVELS_PATH) -> ServiceLevels:
    """Read the service-level pack; raise ValueError when it is malformed (an unknown tier, a bad limit)."""
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    try:
        tiers = {name: tier_parse(name, entry) for name, entry in data["tiers"].items()}
        rules = tuple(
            TierRule(
                rule_id=str(rule["id"]),
                tier=str(rule["tier"]),
                urgency=frozenset(rule.get("urgency", ())),
                level2=frozenset(rule.get("level2", ())),
                level3=frozenset(rule.get("level3", ())),
            )
            for rule in data["rules"]
        )
        default_tier, version = str(data["default_tier"]), str(data["version"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed service levels {path}: {exc!r}") from exc
    unknown = {rule.tier for rule in rules if rule.tier not in tiers} | ({default_tier} - set(tiers))
    if unknown:
        raise ValueError(f"service levels {path} name tiers it does not define: {sorted(unknown)}")
    return ServiceLevels(version=version, tiers=tiers, rules=rules, default_tier=default_tier)


def working_time_add(start: datetime, span: timedelta, calendar: WorkCalendar, zone: tzinfo) -> datetime:
    """The moment `span` of working-day time has passed since `start`: the clock runs through working days (whole
    local days of `zone`) and stands still on the others. `start` must be timezone-aware."""
    moment, remaining = start.astimezone(zone), span
    for _ in range(MAX_COUNTED_DAYS):
        day_end = datetime.combine(moment.date() + timedelta(days=1), time(0), tzinfo=zone)
        if calendar.is_workday(moment.date()):
            if remaining <= day_end - moment:
                return moment + remaining
            remaining -= day_end - moment
        moment = day_end
    raise ValueError(f"a time limit of {span} runs past {MAX_COUNTED_DAYS} days")


def deadline_compute(
    received_at: datetime, tier: Tier, *, calendar: WorkCalendar, zone: tzinfo, due_soon_share: float
) -> tuple[datetime, datetime]:
    """When a ticket received at `received_at` is due under `tier`, and when only `due_soon_share` of its allowed
    time is left (both counted on the tier's clock)."""
    share = min(max(due_soon_share, 0.0), 1.0)
    if tier.unit == "hours":
        allowed = timedelta(hours=tier.limit)
        return received_at + allowed, received_at + allowed * (1 - share)
    allowed = timedelta(days=tier.limit)
    due = working_time_add(received_at, allowed, calendar, zone)
    return due, working_time_add(received_at, allowed * (1 - share), calendar, zone)


def ticket_deadline(
    received_at: datetime,
    *,
    urgency: str | None,
    level2: str | None,
    level3: str | None,
    overrides: Mapping[str, Tier] | None = None,
    zone: tzinfo,
    due_soon_share: float,
    levels: ServiceLevels | None = None,
    calendar: WorkCalendar | None = None,
) -> Deadline:
    """A ticket's tier (an organisation's `overrides` replace a tier's limit) and its due times."""
    levels = levels or load_service_levels()
    tier, rule_id = levels.tier_for(urgency=urgency, level2=level2, level3=level3)
    tier = (overrides or {}).get(tier.name, tier)
    due, soon = deadline_compute(
        received_at, tier, calendar=calendar or load_calendar(), zone=zone, due_soon_share=due_soon_share
    )
    return Deadline(tier=tier, rule_id=rule_id, due_at=due, due_soon_at=soon)
