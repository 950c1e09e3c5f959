"""Races on real PostgreSQL: concurrent finalizes yield one final version; concurrent claims yield one holder."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from contracts.models import AuditEvent, JobState, Membership, Result, ReviewState, Role
from contracts.review.workflow import review_task_claim
from tests.api.test_review_workflow import URL, needs_review_task, signed_in

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def at_once(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together by a barrier; each thread uses its own database connection."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[index] = call()
        except Exception as exc:  # surfaced through the outcomes, asserted by the test
            outcomes[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


def test_two_reviewers_finalizing_at_once_yield_one_final_version(actors: Any, real_services: Any) -> None:
    bob = get_user_model().objects.create_user("bob", password="bob-password-1")
    Membership.objects.create(user=bob, organisation=actors.acme, role=Role.REVIEWER)
    for round_number in range(3):
        task = needs_review_task(actors, text=f"第{round_number}轮：垃圾站臭气熏天，请尽快处理。")
        review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
        # Rita presses finalize in two tabs while Bob, who saw the task in his queue, presses it too.
        clients = [signed_in(actors.rita), signed_in(actors.rita), signed_in(bob), signed_in(bob)]
        finalize = f"{URL}{task.pk}/finalize/"
        responses = at_once([partial(c.post, finalize) for c in clients])

        statuses = sorted(getattr(r, "status_code", repr(r)) for r in responses)
        assert statuses == [200, 409, 409, 409], responses
        rita_tabs, bob_tabs = responses[:2], responses[2:]
        assert sorted(r.status_code for r in rita_tabs) == [200, 409]
        assert next(r for r in rita_tabs if r.status_code == 409).json()["error"]["code"] == "already_finalized"
        # Bob never held the claim: refused whether his request was served before or after Rita's finalize.
        assert {r.json()["error"]["code"] for r in bob_tabs} <= {"claim_required", "already_finalized"}
        versions = list(
            Result.objects.filter(document=task.document).order_by("version").values_list("version", flat=True)
        )
        assert versions == [1, 2]
        task.refresh_from_db()
        assert task.state == ReviewState.FINALIZED and task.finalized_by == actors.rita
        assert task.job.state == JobState.DONE
        assert AuditEvent.objects.filter(action="review.finalized", object_id=str(task.pk)).count() == 1


def test_two_reviewers_claiming_at_once_yield_one_holder(actors: Any, real_services: Any) -> None:
    bob = get_user_model().objects.create_user("bob", password="bob-password-1")
    Membership.objects.create(user=bob, organisation=actors.acme, role=Role.REVIEWER)
    task = needs_review_task(actors)
    clients = [signed_in(actors.rita), signed_in(bob)]
    claim = f"{URL}{task.pk}/claim/"
    responses = at_once([partial(c.post, claim) for c in clients])
    assert sorted(getattr(r, "status_code", repr(r)) for r in responses) == [200, 409], responses
    winner = next(r for r in responses if r.status_code == 200).json()["claimed_by"]
    task.refresh_from_db()
    assert task.claimed_by is not None and task.claimed_by.get_username() == winner
    assert AuditEvent.objects.filter(action="review.claimed", object_id=str(task.pk)).count() == 1
