"""A ticket's time limit and progress on the portal: entered with the time the citizen called, shown in zh-Hans."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine

from contracts.models import Document, TicketDeadline
from contracts.pipeline import job_run
from tests.frontend.test_portal import signed_in

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
STREETLIGHT = "小区门口的路灯坏了好几天了，晚上出行很不方便，希望有关部门尽快维修。"


def test_an_operator_enters_when_the_citizen_called_and_sees_the_time_limit(
    client: Any, actors: Any, acme_api: Any
) -> None:
    signed_in(client, actors.alice)
    with time_machine.travel(datetime(2026, 12, 4, 10, 20, tzinfo=SHANGHAI), tick=False):
        response = client.post(
            "/submit/", {"text": STREETLIGHT, "channel": "phone", "received_at": "2026-12-04T10:00", "reference": "R1"}
        )
        document = Document.objects.get(reference="R1")
        assert response.status_code == 302
        job = document.latest_job()
        assert job is not None
        job_run(job.pk, "portal-test")
        page = client.get(f"/documents/{document.pk}/").content.decode()
    assert document.metadata["received_at"] == "2026-12-04T10:00:00+08:00"  # the portal's local time
    for shown in ("办理时限", "受理时间", "2026-12-04 10:00", "应办结时间", "2026-12-15 10:00", "一般件 · 7 个工作日"):
        assert shown in page, shown
    assert "未超期" in page and "已受理" in page

    acme_api.post(
        f"/api/v1/documents/{document.pk}/progress/", {"status": "dispatched", "department": "市城管局"}, format="json"
    )
    acme_api.post(
        f"/api/v1/documents/{document.pk}/progress/", {"status": "returned", "reason": "非本单位职责"}, format="json"
    )
    page = client.get(f"/documents/{document.pk}/").content.decode()
    assert "已退单" in page and "退单理由" in page and "非本单位职责" in page
    assert "已派单 → 市城管局" in page  # the history


def test_a_received_time_in_the_future_is_refused_on_the_form(client: Any, actors: Any) -> None:
    signed_in(client, actors.alice)
    with time_machine.travel(datetime(2026, 12, 4, 10, 0, tzinfo=SHANGHAI), tick=False):
        response = client.post("/submit/", {"text": STREETLIGHT, "channel": "phone", "received_at": "2026-12-04T11:00"})
    assert response.status_code == 200 and "不能晚于当前时间" in response.content.decode()
    assert not Document.objects.exists() and not TicketDeadline.objects.exists()


def test_a_contract_page_shows_no_time_limit(client: Any, actors: Any, acme_api: Any) -> None:
    signed_in(client, actors.alice)
    contract = acme_api.post("/api/v1/documents/", {"kind": "contract", "text": "第一条 本合同自签订之日起生效。"})
    page = client.get(f"/documents/{contract.json()['document']['id']}/").content.decode()
    assert "办理时限" not in page
