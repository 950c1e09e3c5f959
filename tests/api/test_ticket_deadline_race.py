"""Two beat runs at once (a second beat, a redelivered task) mark each overdue ticket once: both read the same
candidates, and the conditional UPDATE lets only one of them mark each row."""

from __future__ import annotations

import hashlib
import threading
import time
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from contracts.hotline.deadlines.escalation import deadlines_escalate
from contracts.models import AuditEvent, Document, TicketDeadline

pytestmark = pytest.mark.django_db(transaction=True)


def overdue_tickets(organisation: Any, count: int) -> None:
    past = timezone.now() - timedelta(hours=1)
    for n in range(count):
        text = f"第{n}号路灯坏了。"
        document = Document.objects.create(
            organisation=organisation,
            kind="ticket",
            source="api",
            content_type="text/plain",
            size_bytes=len(text.encode()),
            sha256=hashlib.sha256(text.encode()).hexdigest(),
            text=text,
        )
        TicketDeadline.objects.create(
            document=document,
            organisation=organisation,
            received_at=past - timedelta(hours=2),
            tier="emergency",
            due_soon_at=past - timedelta(minutes=24),
            due_at=past,
        )


def test_two_beat_runs_at_once_mark_each_ticket_once(actors: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's row locks")
    overdue_tickets(actors.acme, 5)
    counts: list[dict[str, int]] = []

    def beat() -> None:
        try:
            counts.append(deadlines_escalate())
        finally:
            from django.db import connection as thread_connection  # each thread's own connection

            thread_connection.close()

    settings_dict = connection.settings_dict
    dsn = f"host={settings_dict['HOST'] or '127.0.0.1'} port={settings_dict['PORT'] or 5432} "
    dsn += f"dbname={settings_dict['NAME']} user={settings_dict['USER']}"
    with psycopg.connect(dsn) as holder:
        holder.execute("SELECT 1 FROM contracts_ticketdeadline FOR UPDATE")  # both runs read, neither can mark yet
        threads = [threading.Thread(target=beat) for _ in range(2)]
        for thread in threads:
            thread.start()
        waiting = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = %s"
        until = time.monotonic() + 30
        while time.monotonic() < until:
            with psycopg.connect(dsn, autocommit=True) as probe:
                if probe.execute(waiting, (settings_dict["NAME"],)).fetchone()[0] >= 2:  # type: ignore[index]
                    break
            time.sleep(0.1)
        holder.commit()
    for thread in threads:
        thread.join(timeout=60)
    assert sum(c["overdue"] for c in counts) == 5 and len(counts) == 2
    assert AuditEvent.objects.filter(action="ticket.overdue").count() == 5
    assert set(TicketDeadline.objects.values_list("state", flat=True)) == {"overdue"}
