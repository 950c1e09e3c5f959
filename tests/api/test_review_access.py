"""Who may review: only signed-in reviewers of the same organisation; claims expire; admins reassign."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from contracts.models import AuditEvent, Membership, Result, ReviewState, ReviewTask, Role
from tests.api.test_review_workflow import URL, needs_review_task, signed_in

pytestmark = pytest.mark.django_db


def acme_member(actors: Any, username: str, role: str) -> Any:
    user = get_user_model().objects.create_user(username, password=f"{username}-password-1")
    Membership.objects.create(user=user, organisation=actors.acme, role=role)
    return user


ACTIONS = [
    ("claim/", {}),
    ("release/", {}),
    ("decisions/", {"finding_id": "F1", "decision": "approve"}),
    ("response/", {"text": "x"}),
    ("finalize/", {}),
    ("reassign/", {"username": "oscar"}),
]


def test_reviewer_of_another_organisation_sees_nothing_and_gets_404(actors: Any) -> None:
    task = needs_review_task(actors)
    oscar = signed_in(actors.oscar)  # an admin, but of Globex

    assert oscar.get(URL).json()["count"] == 0
    assert oscar.get(f"{URL}{task.pk}/").status_code == 404
    for path, payload in ACTIONS:
        response = oscar.post(f"{URL}{task.pk}/{path}", payload, format="json")
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"
    task.refresh_from_db()
    assert task.state == ReviewState.OPEN and task.claimed_by is None
    assert not AuditEvent.objects.filter(actor_user=actors.oscar).exists()


def test_submitter_cannot_review(actors: Any) -> None:
    task = needs_review_task(actors)
    alice = signed_in(actors.alice)
    assert alice.get(URL).status_code == 403
    assert alice.get(f"{URL}{task.pk}/").status_code == 403
    response = alice.post(f"{URL}{task.pk}/claim/")
    assert response.status_code == 403
    assert response.json()["error"]["message"]


def test_api_key_callers_cannot_review(actors: Any, acme_api: Any) -> None:
    task = needs_review_task(actors)
    assert acme_api.get(URL).status_code == 403
    assert acme_api.post(f"{URL}{task.pk}/claim/").status_code == 403


def test_anonymous_caller_gets_401(actors: Any) -> None:
    task = needs_review_task(actors)
    assert APIClient().get(URL).status_code == 401
    assert APIClient().post(f"{URL}{task.pk}/claim/").status_code == 401


def test_a_live_claim_cannot_be_taken_over(actors: Any) -> None:
    task = needs_review_task(actors)
    bob = signed_in(acme_member(actors, "bob", Role.REVIEWER))
    assert signed_in(actors.rita).post(f"{URL}{task.pk}/claim/").status_code == 200

    response = bob.post(f"{URL}{task.pk}/claim/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "claimed_by_other"
    assert "rita" in response.json()["error"]["message"]
    task.refresh_from_db()
    assert task.claimed_by == actors.rita


def test_claiming_again_renews_ones_own_claim(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    first = rita.post(f"{URL}{task.pk}/claim/").json()["claim_expires_at"]
    second = rita.post(f"{URL}{task.pk}/claim/").json()["claim_expires_at"]
    assert second >= first


def test_an_expired_claim_can_be_taken_over_and_the_old_holder_loses_it(actors: Any, settings: Any) -> None:
    settings.DOCGATE_REVIEW_CLAIM_S = 60
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    bob_user = acme_member(actors, "bob", Role.REVIEWER)
    bob = signed_in(bob_user)
    claimed = rita.post(f"{URL}{task.pk}/claim/").json()
    assert claimed["claimed_by"] == "rita"
    ReviewTask.objects.filter(pk=task.pk).update(claim_expires_at=timezone.now() - timedelta(seconds=1))

    taken = bob.post(f"{URL}{task.pk}/claim/")
    assert taken.status_code == 200
    assert taken.json()["claimed_by"] == "bob"
    response = rita.post(f"{URL}{task.pk}/decisions/", {"finding_id": "F1", "decision": "approve"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "claim_required"
    event = AuditEvent.objects.get(action="review.claim_taken_over")
    assert event.actor_user == bob_user
    assert (event.before or {})["claimed_by"] == "rita" and (event.after or {})["claimed_by"] == "bob"
    assert bob.post(f"{URL}{task.pk}/finalize/").status_code == 200


def test_own_expired_claim_must_be_renewed_before_finalizing(actors: Any) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")
    ReviewTask.objects.filter(pk=task.pk).update(claim_expires_at=timezone.now() - timedelta(seconds=1))
    response = rita.post(f"{URL}{task.pk}/finalize/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "claim_expired"
    assert Result.objects.filter(document=task.document).count() == 1
    assert rita.post(f"{URL}{task.pk}/claim/").status_code == 200
    assert rita.post(f"{URL}{task.pk}/finalize/").status_code == 200


def test_only_an_admin_of_the_organisation_can_reassign(actors: Any) -> None:
    task = needs_review_task(actors)
    ada_user = acme_member(actors, "ada", Role.ADMIN)
    ada = signed_in(ada_user)
    bob_user = acme_member(actors, "bob", Role.REVIEWER)
    rita = signed_in(actors.rita)
    rita.post(f"{URL}{task.pk}/claim/")

    refused = rita.post(f"{URL}{task.pk}/reassign/", {"username": "bob"}, format="json")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "not_admin"
    for username in ("alice", "oscar", "nobody"):  # a submitter, an outsider, no such user: the same answer
        response = ada.post(f"{URL}{task.pk}/reassign/", {"username": username}, format="json")
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_assignee"

    moved = ada.post(f"{URL}{task.pk}/reassign/", {"username": "bob"}, format="json")
    assert moved.status_code == 200
    assert moved.json()["claimed_by"] == "bob"
    event = AuditEvent.objects.get(action="review.reassigned")
    assert event.actor_user == ada_user
    assert (event.before or {})["claimed_by"] == "rita" and (event.after or {})["claimed_by"] == "bob"
    assert signed_in(bob_user).post(f"{URL}{task.pk}/finalize/").status_code == 200


def test_admin_may_review_too(actors: Any) -> None:
    task = needs_review_task(actors)
    ada = signed_in(acme_member(actors, "ada", Role.ADMIN))
    assert ada.get(URL).json()["count"] == 1
    assert ada.post(f"{URL}{task.pk}/claim/").status_code == 200
