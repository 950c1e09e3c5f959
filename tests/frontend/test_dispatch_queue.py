"""The dispatcher's queue: open tickets soonest due first with red/yellow/green lights, filtered by category,
department, region, repeat case and overdue; answered tickets leave it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from contracts.hotline.deadlines.models import TicketDeadline
from tests.api.deadline_helpers import GAS_LEAK, NO_WATER, STREETLIGHT, ticket_submitted
from tests.frontend.test_portal import signed_in

pytestmark = pytest.mark.django_db

MONDAY_9AM = datetime(2026, 12, 7, 9, 0, tzinfo=ZoneInfo("Asia/Shanghai"))


def _rows(client: Any, query: str = "") -> list[tuple[str, str]]:
    """(light, document id) of each queue row, in order."""
    page = client.get(f"/dispatch/{query}").content.decode()
    return re.findall(r'<tr data-light="(\w+)" data-document="([0-9a-f-]+)">', page)


def test_the_queue_orders_by_due_time_with_lights_and_filters(client: Any, actors: Any, acme_api: Any) -> None:
    with time_machine.travel(MONDAY_9AM, tick=False):
        light = ticket_submitted(acme_api, STREETLIGHT, region="A市B区")  # 7 working days
        water = ticket_submitted(acme_api, NO_WATER, region="A市C区")  # 24 hours
        gas = ticket_submitted(acme_api, GAS_LEAK, region="A市B区")  # 2 hours
    signed_in(client, actors.rita)
    with time_machine.travel(MONDAY_9AM + timedelta(hours=1, minutes=45), tick=False):
        rows = _rows(client)
        assert [doc for _, doc in rows] == [str(gas.pk), str(water.pk), str(light.pk)], "soonest due first"
        assert [lamp for lamp, _ in rows] == ["yellow", "green", "green"], "the gas leak is due within 15 minutes"
        assert [doc for _, doc in _rows(client, "?region=B区")] == [str(gas.pk), str(light.pk)]
        water_category = water.latest_result().data["response"]["category"]  # type: ignore[union-attr]
        assert str(water.pk) in [doc for _, doc in _rows(client, f"?category={water_category}")]
        assert _rows(client, "?overdue=on") == []
    with time_machine.travel(MONDAY_9AM + timedelta(hours=3), tick=False):
        assert _rows(client)[0] == ("red", str(gas.pk))
        assert _rows(client, "?overdue=on") == [("red", str(gas.pk))]
        answered = acme_api.post(f"/api/v1/documents/{gas.pk}/progress/", {"status": "answered"}, format="json")
        assert answered.status_code == 200, answered.json()
        assert str(gas.pk) not in [doc for _, doc in _rows(client)], "an answered ticket leaves the queue"
        assert ("grey", str(gas.pk)) in _rows(client, "?closed=on")
    assert TicketDeadline.objects.filter(organisation=actors.acme).count() == 3


def test_an_untitled_ticket_shows_its_start_with_personal_data_masked(client: Any, actors: Any, acme_api: Any) -> None:
    ticket_submitted(acme_api, "我的电话13812345678，" + STREETLIGHT)
    page = signed_in(client, actors.rita).get("/dispatch/").content.decode()
    [preview] = re.findall(r'data-testid="dispatch-ticket">([^<]*)', page)
    assert preview.startswith("我的电话＊＊＊") and "路灯" in preview and "13812345678" not in page


def test_another_organisations_tickets_never_show(client: Any, actors: Any, acme_api: Any) -> None:
    ticket_submitted(acme_api, STREETLIGHT)
    signed_in(client, actors.oscar)
    assert _rows(client) == []


def test_the_ticket_page_shows_routing_alternatives_and_its_repeat_case(
    client: Any, actors: Any, acme_api: Any
) -> None:
    first = ticket_submitted(acme_api, STREETLIGHT)
    again = ticket_submitted(acme_api, "再次反映：" + STREETLIGHT + "至今未解决。")
    signed_in(client, actors.rita)
    page = client.get(f"/documents/{again.pk}/").content.decode()
    assert 'data-testid="routing-alternatives"' in page and "→" in page
    case = next(f for f in again.latest_result().data["findings"] if f["kind"] == "repeat_case")  # type: ignore[union-attr]
    assert case["repeats"] == str(first.pk)
    assert 'data-testid="repeat-case"' in page and "此前 1 件" in page
