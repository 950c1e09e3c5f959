"""Hotspots over an organisation's stored tickets: the rules' analysis (`rules.tickets.hotspots`) on what the
database holds, with personal data masked for those who do not see it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from django.conf import settings
from django.db.models import JSONField, OuterRef, Subquery
from django.utils import timezone

from contracts.findings import finding_list
from contracts.models import Document, DocumentKind, Organisation, Result
from contracts.tenancy.personal_data import latest_personal_findings, quote_masked, text_masked
from rules.tickets.hotspots import (
    Hotspot,
    HotspotReport,
    HotspotTicket,
    Window,
    hotspot_json,
    hotspots_rank,
    ticket_lead,
    window_shift,
    window_start,
)

# The analysis compares every ticket with every other (time and memory grow with the square): this many, the newest
# in the range, cost one request ~4-5 s of CPU and ~180 MB (bench_hotspots); a larger range answers `truncated`.
MAX_HOTSPOT_TICKETS = 3000
DEFAULT_WINDOWS = 12


@dataclass(frozen=True)
class StoredTicket:
    """A stored ticket as the analysis read it, with what the portal shows of it (masked where it must be)."""

    id: str
    title: str
    text: str
    lead: str
    created_at: dt.datetime


@dataclass(frozen=True)
class OrganisationHotspots:
    """The report, the range it covers, whether tickets were left out, and the tickets behind the hotspots."""

    report: HotspotReport
    since: dt.datetime
    until: dt.datetime
    truncated: bool
    tickets: Mapping[str, StoredTicket]


def _latest(field: str) -> Subquery:
    latest = Result.objects.filter(document=OuterRef("pk")).order_by("-version")
    return Subquery(latest.values(field)[:1], output_field=JSONField())


def _finding_label(data: Any, kind: str) -> str | None:
    findings = finding_list(data or {}, "findings") if isinstance(data, dict) else []
    labels = [f.get("label") for f in findings if f.get("kind") == kind and f.get("source") == "rule"]
    labels = labels or [f.get("label") for f in findings if f.get("kind") == kind]
    return str(labels[0]) if labels and labels[0] else None


def _repeat(data: Any) -> bool:
    """Whether the ticket's newest result has it join its case as a repeat of an earlier ticket."""
    findings = finding_list(data or {}, "findings") if isinstance(data, dict) else []
    return any(f.get("kind") == "repeat_case" and f.get("repeats") for f in findings)


def _count(metadata: Mapping[str, Any], key: str) -> int:
    """The platform's count of citizens' supports (点赞) or objections (反对), 0 when it sends none."""
    value = metadata.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _ticket(row: Mapping[str, Any]) -> HotspotTicket:
    metadata = row["metadata"] if isinstance(row["metadata"], dict) else {}
    region = metadata.get("region")
    return HotspotTicket(
        id=str(row["pk"]),
        text=row["text"],
        time=row["created_at"],
        title=row["title"],
        likes=_count(metadata, "likes"),
        against=_count(metadata, "against"),
        category=_finding_label(row["latest_data"], "ticket_category"),
        region=region if isinstance(region, str) else None,
        urgency=_finding_label(row["latest_data"], "urgency"),
        # A ticket that joined an earlier complaint's case as its repeat (the result's repeat_case finding).
        repeat=_repeat(row["latest_data"]),
    )


def default_range(window: Window, until: dt.datetime | None) -> tuple[dt.datetime, dt.datetime]:
    """The last DEFAULT_WINDOWS windows up to `until` (now when not given); from the first year there is."""
    end = until or timezone.now()
    zone = timezone.get_default_timezone()
    try:
        return window_shift(window_start(end, window, zone), window, 1 - DEFAULT_WINDOWS), end
    except (OverflowError, ValueError):  # an `until` within weeks of year 1
        return dt.datetime.min.replace(tzinfo=dt.UTC), end


def organisation_hotspots(
    *,
    organisation: Organisation,
    window: Window = "week",
    top: int = 10,
    period: Literal["all", "latest"] | dt.date = "all",
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    min_tickets: int = 2,
    sees_personal_data: bool = False,
) -> OrganisationHotspots:
    """The organisation's hotspots among its tickets created in [since, until) (by default the last 12 windows)."""
    start, end = default_range(window, until)
    start = since or start
    rows = list(
        Document.objects.filter(organisation=organisation, kind=DocumentKind.TICKET, created_at__gte=start)
        .filter(created_at__lt=end)
        .exclude(text="")
        .annotate(latest_data=_latest("data"), masking_findings=latest_personal_findings())
        .order_by("-created_at", "-pk")
        .values("pk", "text", "title", "metadata", "created_at", "latest_data", "masking_findings")[
            : MAX_HOTSPOT_TICKETS + 1
        ]
    )
    truncated = len(rows) > MAX_HOTSPOT_TICKETS
    rows = rows[:MAX_HOTSPOT_TICKETS]
    report = hotspots_rank(
        [_ticket(row) for row in rows],
        window=window,
        top=top,
        period=period,
        min_tickets=min_tickets,
        zone=settings.TIME_ZONE,
    )
    behind = {ticket_id for hotspot in report.hotspots for ticket_id in hotspot.ticket_ids}
    shown = {str(r["pk"]): _shown(r, sees_personal_data) for r in rows if str(r["pk"]) in behind}
    if not sees_personal_data:
        report = replace(report, hotspots=tuple(_masked(h, shown) for h in report.hotspots))
    return OrganisationHotspots(report, start, end, truncated, shown)


def _shown(row: Mapping[str, Any], sees_personal_data: bool) -> StoredTicket:
    title, text = row["title"], row["text"]
    if not sees_personal_data:
        findings = row["masking_findings"] if isinstance(row["masking_findings"], list) else []
        title, text = quote_masked(title), text_masked(text, findings)
    return StoredTicket(str(row["pk"]), title, text, ticket_lead(title, text), row["created_at"])


def _masked(hotspot: Hotspot, shown: Mapping[str, StoredTicket]) -> Hotspot:
    """The hotspot as a caller who does not see personal data reads it: its typical ticket's masked lead, and only
    the keywords its tickets still show once masked."""
    typical = shown[hotspot.typical_ticket]
    visible = "\n".join(f"{t.title}\n{t.text}" for i in hotspot.ticket_ids if (t := shown.get(i)))
    keywords = tuple(word for word in hotspot.keywords if word in visible)
    return replace(hotspot, description=typical.lead, keywords=keywords)


def hotspots_json(result: OrganisationHotspots) -> dict[str, Any]:
    """The API's (and the portal's) JSON of an organisation's hotspots, each with the tickets behind it."""
    hotspots = []
    for hotspot in result.report.hotspots:
        shown = [result.tickets[i] for i in hotspot.ticket_ids if i in result.tickets]
        tickets = [
            {"id": t.id, "title": t.title, "lead": t.lead, "created_at": timezone.localtime(t.created_at).isoformat()}
            for t in shown
        ]
        hotspots.append({**hotspot_json(hotspot), "tickets": tickets})
    return {
        "hotspots": hotspots,
        "windows": [start.isoformat() for start in result.report.windows],
        "window": result.report.window,
        "since": timezone.localtime(result.since).isoformat(),
        "until": timezone.localtime(result.until).isoformat(),
        "tickets": result.report.tickets,
        "truncated": result.truncated,
    }
