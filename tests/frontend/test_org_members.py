"""Members in the portal: Oscar administers Globex; he invites, re-roles and removes people, never Acme's.

An invitation names an exact username or e-mail address and makes nobody a member until its invitee accepts it;
an organisation always keeps one admin, so Oscar cannot step down or leave while he is the only one.
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


def _invite(client: Any, invitee: str, role: str = Role.SUBMITTER, **follow: Any) -> Any:
    return client.post("/organisation/members/", {"invitee": invitee, "role": role}, **follow)


def _joined(client: Any, user: Any) -> Membership:
    """`user` signs in, finds Globex's invitation among theirs and accepts it."""
    client.force_login(user)
    page = client.get("/invitations/")
    assert page.status_code == 200 and "Globex 热线" in page.content.decode()
    [invitation] = page.context["invitations"]
    assert client.post(f"/invitations/{invitation.pk}/accept/").status_code == 302
    return Membership.objects.get(user=user, organisation=invitation.organisation)


def _member(client: Any, actors: Any, user: Any, role: str) -> Membership:
    """Oscar invites `user` with `role`, who accepts; Oscar is signed in again afterwards."""
    _invite(_oscar(client, actors), user.get_username(), role)
    membership = _joined(client, user)
    _oscar(client, actors)
    return membership


def _shown(response: Any) -> list[str]:
    """The messages the page shows after a redirect was followed."""
    return [str(message) for message in response.context["messages"]]


def test_nobody_becomes_a_member_until_they_accept_the_invitation(client: Any, actors: Any) -> None:
    """Oscar invites Alice by her exact username: she is not a member (nor is she, whatever the form posts)
    until she signs in and accepts; then she is, with the role Oscar chose, and both steps are audited."""
    _oscar(client, actors)
    client.post("/organisation/members/", {"username": "alice", "invitee": "alice", "role": Role.SUBMITTER})
    assert not Membership.objects.filter(user=actors.alice, organisation=actors.globex).exists()
    assert 'data-testid="invitation-alice"' in _page(client)

    alice = _joined(client, actors.alice)
    assert alice.role == Role.SUBMITTER
    _oscar(client, actors)
    assert 'data-testid="member-alice"' in _page(client) and 'data-testid="invitation-alice"' not in _page(client)
    client.post(f"/organisation/members/{alice.pk}/role/", {"role": Role.REVIEWER})
    alice.refresh_from_db()
    assert alice.role == Role.REVIEWER
    actions = list(AuditEvent.objects.filter(organisation=actors.globex).values_list("action", "before", "after"))
    assert ("membership.invited", None, {"invitee": "alice", "role": "submitter"}) in actions
    assert ("membership.added", None, {"user": "alice", "role": "submitter", "invitee": "alice"}) in actions
    assert (
        "membership.role_changed",
        {"user": "alice", "role": "submitter"},
        {"user": "alice", "role": "reviewer"},
    ) in actions
    # Alice's Acme membership is untouched: roles are per organisation.
    assert Membership.objects.get(user=actors.alice, organisation=actors.acme).role == Role.SUBMITTER


def test_an_invitation_by_e_mail_reaches_the_account_with_that_address(client: Any, actors: Any) -> None:
    actors.rita.email = "rita@acme.example"
    actors.rita.save()
    _invite(_oscar(client, actors), "Rita@Acme.example", Role.REVIEWER)
    assert _joined(client, actors.rita).role == Role.REVIEWER


def test_inviting_answers_the_same_whether_or_not_such_an_account_exists(client: Any, actors: Any) -> None:
    """No listing and no oracle: the page names no account outside Globex, and inviting `alice` or a name nobody
    has reads alike, so an admin cannot find out who has an account."""
    _oscar(client, actors)
    page = _page(client)
    assert "alice" not in page and "rita" not in page
    # Both names as the form's field was once called too (`username`, when adding was immediate).
    posts = [{"invitee": name, "username": name, "role": "reviewer"} for name in ("alice", "nobody-by-that-name")]
    said = [_shown(client.post("/organisation/members/", post, follow=True)) for post in posts]
    [real], [unknown] = said
    assert real.replace("alice", "X") == unknown.replace("nobody-by-that-name", "X")
    assert Membership.objects.filter(organisation=actors.globex).count() == 1


def test_an_invitation_is_only_for_its_invitee_and_only_for_a_week(client: Any, actors: Any) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from contracts.models import Invitation

    _invite(_oscar(client, actors), "alice")
    invitation = Invitation.objects.get()
    client.force_login(actors.rita)
    assert client.get("/invitations/").context["invitations"] == []
    assert client.post(f"/invitations/{invitation.pk}/accept/").status_code == 404
    Invitation.objects.filter(pk=invitation.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    client.force_login(actors.alice)
    assert client.get("/invitations/").context["invitations"] == []
    assert client.post(f"/invitations/{invitation.pk}/accept/").status_code == 404
    assert not Membership.objects.filter(organisation=actors.globex).exclude(user=actors.oscar).exists()


def test_an_invitation_can_be_declined_by_its_invitee_and_withdrawn_by_the_admin(client: Any, actors: Any) -> None:
    from contracts.models import Invitation

    _invite(_oscar(client, actors), "alice")
    _invite(client, "rita")
    withdrawn = Invitation.objects.get(invitee="rita")
    assert client.post(f"/organisation/invitations/{withdrawn.pk}/withdraw/").status_code == 302
    client.force_login(actors.alice)
    [declined] = client.get("/invitations/").context["invitations"]
    assert client.post(f"/invitations/{declined.pk}/decline/").status_code == 302
    assert not Invitation.objects.exists()
    assert not Membership.objects.filter(organisation=actors.globex).exclude(user=actors.oscar).exists()
    actions = set(AuditEvent.objects.filter(organisation=actors.globex).values_list("action", flat=True))
    assert {"membership.invitation_withdrawn", "membership.invitation_declined"} <= actions


@pytest.mark.parametrize(
    ("invitee", "says"),
    [("oscar", "已经是成员"), ("", "必填")],
    ids=["already-member", "empty"],
)
def test_inviting_a_member_again_or_nobody_is_refused_with_a_message(
    client: Any, actors: Any, invitee: str, says: str
) -> None:
    from contracts.models import Invitation

    _oscar(client, actors)
    [message] = _shown(_invite(client, invitee, Role.REVIEWER, follow=True))
    assert says in message
    assert not Invitation.objects.exists()


def test_the_last_admin_can_neither_step_down_nor_leave(client: Any, actors: Any) -> None:
    _oscar(client, actors)
    oscar = Membership.objects.get(user=actors.oscar, organisation=actors.globex)
    demoted = client.post(f"/organisation/members/{oscar.pk}/role/", {"role": Role.REVIEWER}, follow=True)
    assert "至少需要一名管理员" in _shown(demoted)[0]
    removed = client.post(f"/organisation/members/{oscar.pk}/remove/", follow=True)
    assert "至少需要一名管理员" in _shown(removed)[0]
    oscar.refresh_from_db()
    assert oscar.role == Role.ADMIN
    assert not AuditEvent.objects.filter(action__startswith="membership.").exists()


def test_with_a_second_admin_oscar_steps_down_and_loses_the_admin_page(client: Any, actors: Any) -> None:
    _member(client, actors, actors.rita, Role.ADMIN)
    oscar = Membership.objects.get(user=actors.oscar, organisation=actors.globex)
    stepped_down = client.post(f"/organisation/members/{oscar.pk}/role/", {"role": Role.SUBMITTER})
    assert stepped_down.status_code == 302 and stepped_down["Location"] == "/"
    assert client.get("/organisation/").status_code == 403


def test_admin_removes_a_member_who_then_loses_access(client: Any, actors: Any) -> None:
    alice = _member(client, actors, actors.alice, Role.REVIEWER)
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
    assert _invite(client, "oscar", Role.ADMIN).status_code == 403
    assert client.post(f"/organisation/members/{rita_at_acme.pk}/role/", {"role": Role.ADMIN}).status_code == 403
    assert rita_at_acme.role == Role.REVIEWER and not AuditEvent.objects.filter(action__startswith="membership.")


def test_an_unknown_role_is_refused(client: Any, actors: Any) -> None:
    from contracts.models import Invitation

    _oscar(client, actors)
    response = _invite(client, "alice", "owner", follow=True)
    assert "owner" in _shown(response)[0]
    assert not Invitation.objects.exists()
