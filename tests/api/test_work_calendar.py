"""The holiday calendar's gaps are visible, and an operator can close them: with frozen time on 2 December 2026 the
pack knows 2026 officially and 2027 only by its statutory holidays, so `manage.py check` warns and /readyz says so;
loading the State Council's schedule for 2027 (command or admin) moves Acme's deadlines and is versioned and audited.

Acme and Globex are two organisations; the operator loads 2027 for one of them, then for both.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.core.checks import run_checks
from django.core.management import CommandError, call_command

from contracts.hotline.deadlines.calendar import WorkCalendarYear, work_calendar
from contracts.models import AuditEvent, TicketDeadline
from tests.api.deadline_helpers import ticket_submitted

pytestmark = pytest.mark.django_db
SHANGHAI = ZoneInfo("Asia/Shanghai")
TODAY = datetime(2026, 12, 2, 10, 0, tzinfo=SHANGHAI)
# A schedule in the notice's form for 2027 (test data: which days the State Council will choose is not known).
NOTICE_2027 = {
    "years": {
        "2027": {
            "status": "official",
            "source": "国务院办公厅关于2027年部分节假日安排的通知 (test)",
            "holidays": [
                {"name": "元旦", "from": "2027-01-01", "to": "2027-01-03"},
                {"name": "春节", "from": "2027-02-05", "to": "2027-02-13"},
            ],
            "workdays": [{"name": "春节调休", "date": "2027-02-14"}],
        }
    }
}


def calendar_warnings() -> list[Any]:
    return [w for w in run_checks(databases=["default"]) if w.id == "docgate.W012"]


@pytest.fixture
def notice(tmp_path: Path) -> Path:
    path = tmp_path / "2027.json"
    path.write_text(json.dumps(NOTICE_2027, ensure_ascii=False), encoding="utf-8")
    return path


def test_check_and_readyz_say_that_next_year_has_statutory_holidays_only(actors: Any, client: Any) -> None:
    assert [w for w in run_checks() if w.id == "docgate.W012"] == []  # a plain `check` does not read the database
    with time_machine.travel(TODAY, tick=False):
        (warning,) = calendar_warnings()
        body = client.get("/readyz").json()
    assert "2027: statutory holidays only" in warning.msg and "2026" not in warning.msg
    assert "manage.py work_calendar load" in warning.hint
    shown = body["checks"]["work_calendar"]
    assert shown["ok"] is False and shown["required"] is False and shown["status"] == "incomplete"
    assert shown["years"] == {"2026": "official", "2027": "statutory_only"}
    assert "0 of 2 organisations" in shown["detail"]


def test_a_year_the_calendar_does_not_list_is_reported_missing(actors: Any, client: Any) -> None:
    with time_machine.travel(datetime(2027, 12, 2, tzinfo=SHANGHAI), tick=False):
        (warning,) = calendar_warnings()
        shown = client.get("/readyz").json()["checks"]["work_calendar"]
    assert "2028: no holidays listed" in warning.msg
    assert shown["years"] == {"2027": "statutory_only", "2028": "missing"}


def test_loading_the_official_schedule_for_every_organisation_clears_the_warning(
    actors: Any, client: Any, notice: Path
) -> None:
    call_command("work_calendar", "load", str(notice), "--organisation", "acme")
    with time_machine.travel(TODAY, tick=False):
        (warning,) = calendar_warnings()
        assert "1 of 2 organisations loaded the official schedule" in warning.msg
        call_command("work_calendar", "load", str(notice))
        assert calendar_warnings() == []
        shown = client.get("/readyz").json()["checks"]["work_calendar"]
    assert shown["ok"] is True and shown["years"] == {"2026": "official", "2027": "official"}
    row = WorkCalendarYear.objects.get(organisation=actors.acme, year=2027)
    assert row.version == 2 and row.status == "official"
    changes = AuditEvent.objects.filter(organisation=actors.acme, action="work_calendar_year.changed").order_by("pk")
    assert [(e.before or {}).get("version") for e in changes] == [None, 1]


def test_a_loaded_year_moves_only_its_organisations_deadlines(
    actors: Any, acme_api: Any, globex_api: Any, notice: Path
) -> None:
    # Thursday 4 February 2027 10:00, 7 working days: the rest of Thursday, then with the statutory days alone (5-8
    # February off) Tue 9 .. Fri 12, Mon 15, Tue 16 and Wednesday 17 to 10:00; with Acme's schedule (5-13 February
    # off, Sunday 14 worked) Sun 14, Mon 15 .. Fri 19 and Monday 22 to 10:00.
    call_command("work_calendar", "load", str(notice), "--organisation", "acme")
    with time_machine.travel(datetime(2027, 2, 4, 10, 0, tzinfo=SHANGHAI), tick=False):
        acme_ticket = ticket_submitted(acme_api)
        globex_ticket = ticket_submitted(globex_api)
    assert TicketDeadline.objects.get(pk=globex_ticket.pk).due_at == datetime(2027, 2, 17, 10, 0, tzinfo=SHANGHAI)
    assert TicketDeadline.objects.get(pk=acme_ticket.pk).due_at == datetime(2027, 2, 22, 10, 0, tzinfo=SHANGHAI)
    assert work_calendar(actors.acme).year_status(2027) == "official"
    assert work_calendar(actors.globex).year_status(2027) == "statutory_only"


def test_a_malformed_schedule_is_refused_and_nothing_is_stored(actors: Any, tmp_path: Path) -> None:
    bad = {"years": {"2027": {**NOTICE_2027["years"]["2027"], "workdays": [{"name": "x", "date": "2027-02-10"}]}}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(CommandError, match="must fall on a weekend"):
        call_command("work_calendar", "load", str(path))
    assert not WorkCalendarYear.objects.exists()


def test_the_admin_edits_a_year_through_the_versioned_service(actors: Any, admin_client: Any) -> None:
    entry = NOTICE_2027["years"]["2027"]
    form = {
        "organisation": actors.globex.pk,
        "year": 2027,
        "status": "official",
        "holidays": json.dumps(entry["holidays"]),
        "workdays": json.dumps([{"name": "春节调休", "date": "2027-02-10"}]),  # a Wednesday: refused
        "source": "test",
    }
    response = admin_client.post("/admin/contracts/workcalendaryear/add/", form)
    assert response.status_code == 200 and "must fall on a weekend" in response.content.decode()
    form["workdays"] = json.dumps(entry["workdays"])
    response = admin_client.post("/admin/contracts/workcalendaryear/add/", form)
    assert response.status_code == 302
    row = WorkCalendarYear.objects.get(organisation=actors.globex, year=2027)
    assert AuditEvent.objects.filter(action="work_calendar_year.changed", object_id=str(row.pk)).count() == 1
    assert work_calendar(actors.globex).is_workday(datetime(2027, 2, 14).date())
