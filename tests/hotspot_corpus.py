"""A hotline's half year for the hotspot tests: the public board's tickets at synthetic times spread over 26 weeks,
plus a planted burst — one complaint (night-time construction noise on one street of one district) reworded by a
dozen citizens within one week."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.shared_data import shared_file

ZONE = dt.timezone(dt.timedelta(hours=8))
START = dt.datetime(2026, 5, 25, tzinfo=ZONE)  # a Monday
WEEKS = 26
BURST_OFFSET = dt.timedelta(weeks=16)  # the burst's week: a Monday 16 weeks after the start
BURST_PLACE = "A3区"
# Written for these tests: the same complaint in the words of different citizens (some give a title, most not).
BURST = [
    (
        "枫林路工地夜间施工噪音扰民",
        "领导您好，A3区枫林路与桐梓坡路交叉口的工地每天晚上十一点以后还在施工，"
        "打桩声音非常大，附近居民根本无法入睡，请相关部门尽快查处。",
    ),
    ("", "A3区枫林路那个工地半夜还在打桩，噪音太吵了，家里老人小孩都睡不着觉，希望有关部门管一管。"),
    ("", "反映A3区枫林路建筑工地夜间违规施工的问题，连续一周凌晨一两点还有渣土车和机械作业，噪音严重影响休息。"),
    ("投诉夜间施工", "A3区枫林路工地晚上施工扰民，已经多次打电话给城管都没人来处理，请求尽快解决夜间噪音问题。"),
    (
        "",
        "我住在枫林路附近（A3区），最近工地每天夜里都在施工，"
        "电钻和打桩机的声音吵得人睡不着，请求相关部门依法制止夜间施工。",
    ),
    ("", "A3区枫林路的施工工地不遵守夜间禁止施工的规定，晚上十点以后机器轰鸣，噪音扰民问题严重。"),
    ("", "请问A3区枫林路工地有没有夜间施工许可证？这几天晚上一直施工到凌晨，噪音让周边住户苦不堪言。"),
    ("", "枫林路工地夜间施工噪声扰民，A3区环保和城管部门能否管一管，居民已经连续多天没睡好觉了。"),
    ("", "A3区枫林路段有工地深夜施工，打桩、切割的噪音非常刺耳，严重影响附近小区居民的正常生活。"),
    ("", "强烈要求整治A3区枫林路工地夜间施工噪音，每晚施工到半夜，孩子第二天还要上学，根本休息不好。"),
    ("", "A3区枫林路的工地晚上灯火通明地干活，噪音很大，投诉多次无果，希望政府重视夜间施工扰民问题。"),
    ("", "反映一下A3区枫林路建筑工地的问题：夜里施工声音太大，影响周边群众休息，请尽快处理。"),
]
BURST_IDS = [f"burst-{i}" for i in range(len(BURST))]


def public_tickets(limit: int | None = None) -> list[dict[str, Any]]:
    """The public board's tickets (id, text), in file order."""
    with open(shared_file("tickets/public.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [{"id": row["id"], "text": row["text"]} for row in rows[:limit]]


def burst_week(start: dt.datetime = START) -> dt.datetime:
    return start + BURST_OFFSET


def recent_start(now: dt.datetime) -> dt.datetime:
    """A start that puts the burst 9 weeks before the week of `now`, inside the default range of 12 windows."""
    local = now.astimezone(ZONE)
    monday = dt.datetime.combine(local.date() - dt.timedelta(days=local.weekday()), dt.time(), tzinfo=ZONE)
    return monday - BURST_OFFSET - dt.timedelta(weeks=9)


def corpus(limit: int | None = None, start: dt.datetime = START) -> list[dict[str, Any]]:
    """Rows {"id", "text", "time", "title"?, "likes"?}: the public tickets spread evenly (in a scrambled order) over
    26 weeks from `start` (a Monday), then the burst, twelve tickets between Monday and Friday of its 17th week,
    each with a few supports."""
    background = public_tickets(limit)
    span = dt.timedelta(weeks=WEEKS).total_seconds()
    rows: list[dict[str, Any]] = []
    for i, row in enumerate(background):
        # A fixed scramble (a multiplier prime to the count) so that neighbouring rows of the file do not share a day.
        slot = (i * 7919) % len(background)
        moment = start + dt.timedelta(seconds=8 * 3600 + span * slot / len(background))
        rows.append({**row, "time": moment.isoformat()})
    for i, ((title, text), ticket_id) in enumerate(zip(BURST, BURST_IDS, strict=True)):
        moment = burst_week(start) + dt.timedelta(hours=9 + i * 9, minutes=7 * i)
        burst: dict[str, Any] = {"id": ticket_id, "text": text, "time": moment.isoformat(), "likes": i % 4}
        if title:
            burst["title"] = title
        rows.append(burst)
    return rows


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def store_tickets(organisation: Any, rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """The rows as the organisation's stored tickets created at their times; returns row id -> document id."""
    from contracts.models import Document, DocumentKind, DocumentSource

    documents, ids = [], {}
    for row in rows:
        raw = row["text"].encode()
        document = Document(
            organisation=organisation,
            kind=DocumentKind.TICKET,
            source=DocumentSource.API,
            title=row.get("title", ""),
            content_type="text/plain",
            size_bytes=len(raw),
            sha256=hashlib.sha256(raw + row["id"].encode()).hexdigest(),
            text=row["text"],
            metadata={"likes": row["likes"]} if "likes" in row else {},
            reference=row["id"],
            created_at=dt.datetime.fromisoformat(row["time"]),
        )
        documents.append(document)
        ids[row["id"]] = str(document.pk)
    Document.objects.bulk_create(documents, batch_size=500)
    return ids
