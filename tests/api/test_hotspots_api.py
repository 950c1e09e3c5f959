"""`GET /api/v1/hotspots/`: the organisation's hotspots, the planted burst first, nothing of another organisation's.

Acme's hotline holds a half year of the public board's tickets and a planted burst; Globex holds nothing of them.
Alice submits for Acme (she reads personal data masked), Rita reviews for Acme (she reads it in full).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.hotspot_corpus import BURST_IDS, BURST_PLACE, START, burst_week, corpus, store_tickets

pytestmark = pytest.mark.django_db

RANGE = {"since": START.isoformat(), "until": (START + dt.timedelta(weeks=27)).isoformat()}
PHONE = "13812345678"


def test_the_planted_burst_is_the_organisations_first_hotspot(actors: Any, acme_api: APIClient) -> None:
    ids = store_tickets(actors.acme, corpus())
    response = acme_api.get("/api/v1/hotspots/", {**RANGE, "top": "5"})
    assert response.status_code == 200, response.content
    body = response.json()
    first = body["hotspots"][0]
    assert set(first["ticket_ids"]) >= {ids[i] for i in BURST_IDS}
    assert first["rank"] == 1 and first["place"].startswith(BURST_PLACE)
    assert dt.datetime.fromisoformat(first["window"]["start"]) == burst_week()
    assert all(h["heat"] < first["heat"] for h in body["hotspots"][1:])
    assert [t["id"] for t in first["tickets"]] == first["ticket_ids"]
    assert first["tickets"][0]["lead"] == "枫林路工地夜间施工噪音扰民"  # the title the first citizen gave
    assert first["likes"] == sum(i % 4 for i in range(len(BURST_IDS)))  # the platform's 点赞 in metadata
    assert body["tickets"] == len(ids) and body["truncated"] is False and len(body["windows"]) >= 26
    counts = {point["window"][:10]: point["count"] for point in first["trend"]}
    assert counts[burst_week().date().isoformat()] == len(first["ticket_ids"]) and sum(counts.values()) == len(
        first["ticket_ids"]
    )


def test_latest_and_a_dated_period_rank_one_window(actors: Any, acme_api: APIClient) -> None:
    store_tickets(actors.acme, corpus(limit=300))
    in_burst = (burst_week() + dt.timedelta(days=2)).date().isoformat()
    dated = acme_api.get("/api/v1/hotspots/", {**RANGE, "period": in_burst}).json()
    assert {h["window"]["start"] for h in dated["hotspots"]} == {burst_week().isoformat()}
    latest = acme_api.get("/api/v1/hotspots/", {**RANGE, "period": "latest", "window": "month"}).json()
    assert all(h["window"]["start"] == latest["windows"][-1] for h in latest["hotspots"])


def test_another_organisation_sees_none_of_acmes_tickets(actors: Any, globex_api: APIClient) -> None:
    store_tickets(actors.acme, corpus(limit=100))
    body = globex_api.get("/api/v1/hotspots/", RANGE).json()
    assert body["hotspots"] == [] and body["tickets"] == 0


def test_tickets_before_the_default_range_are_left_out(actors: Any, acme_api: APIClient) -> None:
    store_tickets(actors.acme, corpus(limit=100))  # the corpus ends in November 2026 …
    old = acme_api.get("/api/v1/hotspots/", {"until": START.isoformat()}).json()
    assert old["tickets"] == 0  # … and nothing of it lies in the 12 weeks before its start


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"window": "year"}, "window"),
        ({"top": "0"}, "top"),
        ({"top": "51"}, "top"),
        ({"period": "yesterday"}, "period"),
        ({"since": "2026-11-30T00:00:00Z", "until": "2026-11-01T00:00:00Z"}, "since"),
        ({"since": "last week"}, "since"),
        ({"min_tickets": "-1"}, "min_tickets"),
    ],
    ids=["window", "top zero", "top too large", "period", "since after until", "since not a time", "min tickets"],
)
def test_bad_query_parameters_are_a_400_naming_the_field(
    actors: Any, acme_api: APIClient, query: dict[str, str], field: str
) -> None:
    response = acme_api.get("/api/v1/hotspots/", query)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid" and field in error["fields"]


def test_an_anonymous_caller_is_refused() -> None:
    response = APIClient().get("/api/v1/hotspots/")
    assert response.status_code == 401


def _tickets_with_a_phone_number(organisation: Any) -> None:
    monday = dt.datetime(2026, 11, 2, 9, tzinfo=dt.timezone(dt.timedelta(hours=8)))
    texts = [
        f"B2区幸福路菜市场凌晨三点就开始卸货，噪音扰民。我的电话{PHONE}",
        f"B2区幸福路菜市场每天凌晨卸货噪音很大，附近居民无法休息，联系电话{PHONE}。",
        f"投诉B2区幸福路菜市场凌晨卸货噪音扰民，电话{PHONE}。",
    ]
    rows = [
        {
            "id": f"p{i}",
            "title": f"菜市场噪音 {PHONE}",
            "text": text,
            "time": (monday + dt.timedelta(hours=i)).isoformat(),
        }
        for i, text in enumerate(texts)
    ]
    store_tickets(organisation, rows)


def test_a_submitter_reads_hotspots_with_personal_data_masked_and_a_reviewer_in_full(actors: Any) -> None:
    _tickets_with_a_phone_number(actors.acme)
    query = {"since": "2026-10-01T00:00:00Z", "until": "2026-12-01T00:00:00Z"}
    alice, rita = APIClient(), APIClient()
    alice.force_login(actors.alice)
    rita.force_login(actors.rita)
    masked = alice.get("/api/v1/hotspots/", query)
    full = rita.get("/api/v1/hotspots/", query)
    assert masked.status_code == full.status_code == 200
    assert len(masked.json()["hotspots"]) == len(full.json()["hotspots"]) == 1
    assert PHONE not in masked.content.decode() and "菜市场噪音" in masked.json()["hotspots"][0]["description"]
    assert PHONE in full.json()["hotspots"][0]["description"]


def test_a_range_at_the_edge_of_the_calendar_is_no_error(actors: Any, acme_api: APIClient) -> None:
    response = acme_api.get("/api/v1/hotspots/", {"until": "0001-01-10T00:00:00Z"})
    assert response.status_code == 200 and response.json()["hotspots"] == []


def test_a_ticket_that_repeats_an_earlier_one_counts_in_the_hotspots_repeat_share(
    actors: Any, acme_api: APIClient
) -> None:
    from contracts.intake.submission import Submission, document_submit
    from contracts.pipeline import job_run

    complaint = "A市B区枫林路工地夜间施工噪音很大，凌晨两点还在打桩，严重影响休息。"
    for text in (complaint, "再次反映：" + complaint + "至今未解决。"):
        outcome = document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text)
        )
        job_run(outcome.job.pk, "hotspot-test")
    [hotspot] = acme_api.get("/api/v1/hotspots/", {"top": "5"}).json()["hotspots"]
    assert len(hotspot["ticket_ids"]) == 2 and hotspot["repeat_share"] == 0.5
