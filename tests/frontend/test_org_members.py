"""Members in the portal: Oscar administers Globex; he adds, re-roles and removes people, never Acme's.

An organisation always keeps one admin, so Oscar cannot step down or leave while he is the only one.
"""

from __future__ import annotations

from typing import Any

import pytest

from contracts.models import AuditEvent, Membership, Role

pytestmark = pytest.mark.django_db


def _oscar(client: Any, actors: Any) -> Any:
    client.force_login(actors.oscar)
    return client


def _page(client: Any) -> str:
    return str(client.get("/organisation/").content.decode())


def test_admin_adds_an_existing_user_and_changes_their_role(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    added = client.post("/organisation/members/", {"username": "alice", "role": Role.SUBMITTER})
    assert added.status_code == 302
    alice = Membership.objects.get(user=actors.alice, organisation=actors.globex)
    assert alice.role == Role.SUBMITTER
    assert 'data-testid="member-alice"' in _page(client)

    client.post(f"/organisation/members/{alice.pk}/role/", {"role": Role.REVIEWER})
    alice.refresh_from_db()
    assert alice.role == Role.REVIEWER
    actions = list(AuditEvent.objects.filter(organisation=actors.globex).values_list("action", "before", "after"))
    assert ("membership.added", None, {"user": "alice", "role": "submitter"}) in actions
    assert (
        "membership.role_changed",
        {"user": "alice", "role": "submitter"},
        {"user": "alice", "role": "reviewer"},
    ) in actions
    # Alice's Acme membership is untouched: roles are per organisation.
    assert Membership.objects.get(user=actors.alice, organisation=actors.acme).role == Role.SUBMITTER


def _shown(response: Any) -> list[str]:
    """The messages the page shows after a redirect was followed."""
    return [str(message) for message in response.context["messages"]]


@pytest.mark.parametrize(
    ("username", "says"),
    [("nobody-by-that-name", "No user is called"), ("oscar", "already a member"), ("", "必填")],
    ids=["unknown-user", "already-member", "empty"],
)
def test_adding_an_unknown_user_or_a_member_again_is_refused_with_a_message(
    client: Any, actors: Any, username: str, says: str
) -> None:
    _oscar(client, actors)
    before = Membership.objects.count()
    response = client.post("/organisation/members/", {"username": username, "role": Role.REVIEWER}, follow=True)
    [message] = _shown(response)
    assert says in message
    assert Membership.objects.count() == before


def test_the_last_admin_can_neither_step_down_nor_leave(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    oscar = Membership.objects.get(user=actors.oscar, organisation=actors.globex)
    demoted = client.post(f"/organisation/members/{oscar.pk}/role/", {"role": Role.REVIEWER}, follow=True)
    assert "at least one admin" in _shown(demoted)[0]
    removed = client.post(f"/organisation/members/{oscar.pk}/remove/", follow=True)
    assert "at least one admin" in _shown(removed)[0]
    oscar.refresh_from_db()
    assert oscar.role == Role.ADMIN
    assert not AuditEvent.objects.filter(action__startswith="membership.").exists()


def test_with_a_second_admin_oscar_steps_down_and_loses_the_admin_page(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    client.post("/organisation/members/", {"username": "rita", "role": Role.ADMIN})
    oscar = Membership.objects.get(user=actors.oscar, organisation=actors.globex)
    stepped_down = client.post(f"/organisation/members/{oscar.pk}/role/", {"role": Role.SUBMITTER})
    assert stepped_down.status_code == 302 and stepped_down["Location"] == "/"
    assert client.get("/organisation/").status_code == 403


def test_admin_removes_a_member_who_then_loses_access(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    client.post("/organisation/members/", {"username": "alice", "role": Role.REVIEWER})
    alice = Membership.objects.get(user=actors.alice, organisation=actors.globex)
    client.post(f"/organisation/members/{alice.pk}/remove/")
    assert not Membership.objects.filter(pk=alice.pk).exists()
    assert AuditEvent.objects.filter(action="membership.removed", before={"user": "alice", "role": "reviewer"}).exists()


def test_members_of_another_organisation_and_non_admins_are_out_of_reach(client: Any, actors: Any) -> None:
    rita_at_acme = Membership.objects.get(user=actors.rita, organisation=actors.acme)
    _oscar(client, actors)
    assert client.post(f"/organisation/members/{rita_at_acme.pk}/role/", {"role": Role.ADMIN}).status_code == 404
    assert client.post(f"/organisation/members/{rita_at_acme.pk}/remove/").status_code == 404
    rita_at_acme.refresh_from_db()
    assert rita_at_acme.role == Role.REVIEWER

    client.force_login(actors.rita)  # a reviewer at Acme, not an admin
    assert client.post("/organisation/members/", {"username": "oscar", "role": Role.ADMIN}).status_code == 403
    assert client.post(f"/organisation/members/{rita_at_acme.pk}/role/", {"role": Role.ADMIN}).status_code == 403
    assert rita_at_acme.role == Role.REVIEWER and not AuditEvent.objects.filter(action__startswith="membership.")


def test_an_unknown_role_is_refused(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    response = client.post("/organisation/members/", {"username": "alice", "role": "owner"}, follow=True)
    assert "owner" in _shown(response)[0]
    assert not Membership.objects.filter(user=actors.alice, organisation=actors.globex).exists()
