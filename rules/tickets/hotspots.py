"""Hotspots: what many citizens complain about in one place at one time, ranked by a heat index.

Tickets are clustered by topic (`rules.tickets.topics`), each topic is split by the place its tickets name
(`rules.tickets.places`, the finest administrative unit) and by time window (day, ISO week or calendar month in
the hotline's time zone); each (topic, place, window) group of at least `min_tickets` is a candidate hotspot,
scored by `heat` below (the formula is in the README, "Hotspots") and ranked.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from zoneinfo import ZoneInfo

from rules.tickets.places import Place, place_of_words, ticket_place
from rules.tickets.topics import KeywordIndex, medoid, topic_labels, topic_vectors
from rules.tickets.urgency import urgency_cues

Window = Literal["day", "week", "month"]
WINDOWS: tuple[Window, ...] = ("day", "week", "month")
URGENCY_WEIGHT = {"normal": 0.0, "high": 0.5, "urgent": 1.0}
UNKNOWN_PLACE = ""
DESCRIPTION_CHARS = 40
_SENTENCE_END = "。！？!?\n；;"


@dataclass(frozen=True)
class HotspotTicket:
    """One ticket as the analysis reads it. `place` (given by the platform) is used as written, else the place
    the title and text name, else `region`; `urgency` (normal, high, urgent), when absent, is graded by the
    urgency rules; `repeat` says the ticket was merged into an earlier complaint's case (False until cases
    are recorded)."""

    id: str
    text: str
    time: dt.datetime
    title: str = ""
    likes: int = 0
    against: int = 0
    category: str | None = None
    place: str | None = None
    region: str | None = None
    urgency: str | None = None
    repeat: bool = False


@dataclass(frozen=True)
class Hotspot:
    """One (topic, place, window) group with its heat and what makes it up."""

    rank: int
    heat: float
    ticket_ids: tuple[str, ...]
    place: str
    place_key: str
    description: str
    typical_ticket: str
    keywords: tuple[str, ...]
    category: str | None
    window_start: dt.datetime
    window_end: dt.datetime
    first_time: dt.datetime
    last_time: dt.datetime
    count: int
    previous_count: int
    growth: float
    urgent_share: float
    repeat_share: float
    likes: int
    against: int
    trend: tuple[tuple[dt.datetime, int], ...]


@dataclass(frozen=True)
class HotspotReport:
    """The ranked hotspots, the windows the tickets fall in (oldest first) and how many tickets were read."""

    hotspots: tuple[Hotspot, ...]
    windows: tuple[dt.datetime, ...]
    window: Window
    tickets: int


def window_start(moment: dt.datetime, window: Window, zone: dt.tzinfo) -> dt.datetime:
    """The start of the window holding `moment` (naive moments are in `zone`): midnight, Monday or the 1st."""
    local = moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)
    day = local.date()
    if window == "week":
        day -= dt.timedelta(days=day.weekday())
    elif window == "month":
        day = day.replace(day=1)
    return dt.datetime.combine(day, dt.time(), tzinfo=zone)


def window_shift(start: dt.datetime, window: Window, steps: int) -> dt.datetime:
    """The start of the window `steps` windows after (or, negative, before) the one starting at `start`."""
    if window == "month":
        months = start.year * 12 + start.month - 1 + steps
        return start.replace(year=months // 12, month=months % 12 + 1)
    days = steps * (7 if window == "week" else 1)
    return dt.datetime.combine(start.date() + dt.timedelta(days=days), dt.time(), tzinfo=start.tzinfo)


def heat_index(count: int, previous: int, urgent_share: float, repeat_share: float, supports: int) -> float:
    """heat = n·(1 + g)·(1 + ½u + ½r) + log2(1 + s), g = max(0, log2((n + 1)/(p + 1))): n tickets in the window,
    p in the window before, u their urgency share, r their repeat share, s the citizens' net supports."""
    growth = max(0.0, math.log2((count + 1) / (previous + 1)))
    return count * (1 + growth) * (1 + 0.5 * urgent_share + 0.5 * repeat_share) + math.log2(1 + max(0, supports))


def _place(ticket: HotspotTicket) -> Place | None:
    if ticket.place:
        return place_of_words(ticket.place)
    found = ticket_place(f"{ticket.title}\n{ticket.text}" if ticket.title else ticket.text)
    if found is None and ticket.region:
        return place_of_words(ticket.region)
    return found


def _urgency_weight(ticket: HotspotTicket) -> float:
    level = ticket.urgency if ticket.urgency in URGENCY_WEIGHT else urgency_cues(ticket.text).level
    return URGENCY_WEIGHT[level or "normal"]


def ticket_lead(title: str, text: str) -> str:
    """A ticket in a few words: its title, else its first sentence, cut to DESCRIPTION_CHARS."""
    text = (title or text).strip()
    cut = min((i for i in (text.find(c) for c in _SENTENCE_END) if i > 0), default=len(text))
    lead = text[:cut].strip()
    return lead if len(lead) <= DESCRIPTION_CHARS else lead[: DESCRIPTION_CHARS - 1] + "…"


def _most_common(values: Iterable[str | None]) -> str | None:
    """The most frequent value (ties: the longest, then the first in order of sort), None if there is none."""
    counts = Counter(v for v in values if v)
    if not counts:
        return None
    return min(counts, key=lambda v: (-counts[v], -len(v), v))


Bucket = tuple[int, str, dt.datetime]  # (topic, place key, window start)


@dataclass(frozen=True)
class _Scored:
    """A candidate group (its bucket, its members' positions) with its heat and what the heat is made of."""

    bucket: Bucket
    members: tuple[int, ...]
    heat: float
    previous: int
    urgent: float
    repeat: float


@dataclass(frozen=True)
class _Analysis:
    """The ordered tickets and what was computed about them once, for naming the hotspots."""

    tickets: Sequence[HotspotTicket]
    places: Sequence[Place | None]
    vectors: Any
    buckets: Mapping[Bucket, list[int]]
    windows: list[dt.datetime]
    window: Window


def _iso(moment: dt.datetime, zone: dt.tzinfo) -> dt.datetime:
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment.astimezone(zone)


def hotspots_rank(
    tickets: Sequence[HotspotTicket],
    *,
    window: Window = "week",
    top: int = 10,
    period: Literal["all", "latest"] | dt.date = "all",
    min_tickets: int = 2,
    zone: dt.tzinfo | str = "Asia/Shanghai",
) -> HotspotReport:
    """The `top` hotspots of the tickets in the chosen windows (`all`, the `latest`, or the one holding a date),
    hottest first; ties go to the larger, then the earlier group. Raises ValueError for an unknown window."""
    if window not in WINDOWS:
        raise ValueError(f"window must be one of {', '.join(WINDOWS)}")
    tz = ZoneInfo(zone) if isinstance(zone, str) else zone
    ordered = sorted(tickets, key=lambda t: (_iso(t.time, tz), t.id))  # a fixed order: the same topics every run
    if not ordered:
        return HotspotReport((), (), window, 0)
    texts = [f"{t.title}\n{t.text}" if t.title else t.text for t in ordered]
    vectors = topic_vectors(texts)
    places = [_place(t) for t in ordered]
    starts = [window_start(t.time, window, tz) for t in ordered]
    buckets: dict[Bucket, list[int]] = defaultdict(list)
    for i, (topic, place, start) in enumerate(zip(topic_labels(vectors), places, starts, strict=True)):
        buckets[(topic, place.key if place else UNKNOWN_PLACE, start)].append(i)
    analysis = _Analysis(ordered, places, vectors, buckets, _windows(min(starts), max(starts), window), window)
    chosen = _chosen_windows(analysis.windows, period, window, tz)
    scored = [
        _score(bucket, members, analysis)
        for bucket, members in buckets.items()
        if bucket[2] in chosen and len(members) >= min_tickets
    ]
    scored.sort(key=lambda s: (-s.heat, -len(s.members), s.bucket[2], s.members[0]))
    keywords = KeywordIndex(texts)
    hotspots = tuple(_hotspot(rank, s, analysis, keywords) for rank, s in enumerate(scored[:top], start=1))
    return HotspotReport(hotspots, tuple(analysis.windows), window, len(ordered))


def _windows(first: dt.datetime, last: dt.datetime, window: Window) -> list[dt.datetime]:
    windows = [first]
    while windows[-1] < last:
        windows.append(window_shift(windows[-1], window, 1))
    return windows


def _chosen_windows(
    windows: list[dt.datetime], period: Literal["all", "latest"] | dt.date, window: Window, zone: dt.tzinfo
) -> set[dt.datetime]:
    if period == "all":
        return set(windows)
    if period == "latest":
        return {windows[-1]}
    if isinstance(period, dt.date):
        return {window_start(dt.datetime.combine(period, dt.time()), window, zone)}
    raise ValueError("period must be all, latest or a date")


def _score(bucket: Bucket, members: list[int], analysis: _Analysis) -> _Scored:
    topic, key, start = bucket
    tickets = [analysis.tickets[i] for i in members]
    previous = len(analysis.buckets.get((topic, key, window_shift(start, analysis.window, -1)), []))
    urgent = sum(_urgency_weight(t) for t in tickets) / len(tickets)
    repeat = sum(t.repeat for t in tickets) / len(tickets)
    supports = sum(t.likes for t in tickets) - sum(t.against for t in tickets)
    heat = round(heat_index(len(tickets), previous, urgent, repeat, supports), 2)
    return _Scored(bucket, tuple(members), heat, previous, urgent, repeat)


def _hotspot(rank: int, scored: _Scored, analysis: _Analysis, keywords: KeywordIndex) -> Hotspot:
    topic, key, start = scored.bucket
    members = [analysis.tickets[i] for i in scored.members]
    times = [_iso(t.time, start.tzinfo or dt.UTC) for t in members]
    labels = (place.label if (place := analysis.places[i]) else None for i in scored.members)
    typical = analysis.tickets[medoid(analysis.vectors, scored.members)]
    return Hotspot(
        rank=rank,
        heat=scored.heat,
        ticket_ids=tuple(t.id for t in members),
        place=_most_common(labels) or UNKNOWN_PLACE,
        place_key=key,
        description=ticket_lead(typical.title, typical.text),
        typical_ticket=typical.id,
        keywords=tuple(keywords.keywords(scored.members)),
        category=_most_common(t.category for t in members),
        window_start=start,
        window_end=window_shift(start, analysis.window, 1),
        first_time=min(times),
        last_time=max(times),
        count=len(members),
        previous_count=scored.previous,
        growth=round(max(0.0, math.log2((len(members) + 1) / (scored.previous + 1))), 4),
        urgent_share=round(scored.urgent, 4),
        repeat_share=round(scored.repeat, 4),
        likes=sum(t.likes for t in members),
        against=sum(t.against for t in members),
        trend=tuple((w, len(analysis.buckets.get((topic, key, w), []))) for w in analysis.windows),
    )


def hotspot_json(hotspot: Hotspot) -> dict[str, Any]:
    """A hotspot as JSON: the evaluation contract's keys (rank, heat, ticket_ids, place, description, time_range)
    and what the heat is made of."""
    return {
        "rank": hotspot.rank,
        "heat": hotspot.heat,
        "ticket_ids": list(hotspot.ticket_ids),
        "place": hotspot.place,
        "description": hotspot.description,
        "time_range": {"start": hotspot.first_time.isoformat(), "end": hotspot.last_time.isoformat()},
        "window": {"start": hotspot.window_start.isoformat(), "end": hotspot.window_end.isoformat()},
        "keywords": list(hotspot.keywords),
        "category": hotspot.category,
        "count": hotspot.count,
        "previous_count": hotspot.previous_count,
        "growth": hotspot.growth,
        "urgent_share": hotspot.urgent_share,
        "repeat_share": hotspot.repeat_share,
        "likes": hotspot.likes,
        "against": hotspot.against,
        "trend": [{"window": start.isoformat(), "count": n} for start, n in hotspot.trend],
    }
