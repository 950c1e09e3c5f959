"""Repeat case pages: members see the organisation's cases, reviewers merge and split them (audited), outsiders
reach nothing."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.hotline.models import CaseTicket
from contracts.models import AuditEvent
from tests.api.test_cases_api import LIGHT, NOISE, NOISE_AGAIN, assigned, case_of

pytestmark = pytest.mark.django_db


def signed_in(client: Any, user: Any) -> Any:
    client.force_login(user)
    return client


def test_member_sees_the_repeat_case_and_its_tickets_in_order(client: Any, actors: Any) -> None:
    first, again = assigned(actors.acme, NOISE), assigned(actors.acme, NOISE_AGAIN)
    assigned(actors.acme, LIGHT)  # a case of one ticket is not listed
    signed_in(client, actors.alice)
    listing = client.get("/cases/").content.decode()
    case = case_of(first)
    assert listing.count('data-case="') == 1 and str(case.pk) in listing
    page = client.get(f"/cases/{case.pk}/").content.decode()
    assert page.index(str(first.pk)) < page.index(str(again.pk))
    assert 'data-testid="merge-form"' not in page and 'data-testid="split"' not in page  # a submitter's view
    assert NOISE[:10] not in page  # tickets are named by title or reference, never by their text


def test_reviewer_merges_and_splits_through_the_portal_and_both_are_audited(client: Any, actors: Any) -> None:
    first, again, other = (assigned(actors.acme, t) for t in (NOISE, NOISE_AGAIN, LIGHT))
    target, source = case_of(first), case_of(other)
    signed_in(client, actors.rita)
    assert 'data-testid="merge-form"' in client.get(f"/cases/{target.pk}/").content.decode()
    response = client.post(f"/cases/{target.pk}/merge/", {"case": str(source.pk)})
    assert response.status_code == 302 and case_of(other) == target
    response = client.post(f"/cases/{target.pk}/split/", {"document": str(again.pk)})
    new = case_of(again)
    assert response.status_code == 302 and response["Location"] == f"/cases/{new.pk}/" and new != target
    assert set(AuditEvent.objects.filter(actor_user=actors.rita).values_list("action", flat=True)) == {
        "case.merge",
        "case.split",
    }
    assert CaseTicket.objects.filter(case=target).count() == 2


def test_submitter_cannot_merge_and_outsider_gets_404(client: Any, actors: Any) -> None:
    first, other = assigned(actors.acme, NOISE), assigned(actors.acme, LIGHT)
    target, source = case_of(first), case_of(other)
    signed_in(client, actors.alice)
    assert client.post(f"/cases/{target.pk}/merge/", {"case": str(source.pk)}).status_code == 403
    signed_in(client, actors.oscar)
    assert client.get(f"/cases/{target.pk}/").status_code == 404
    assert client.post(f"/cases/{target.pk}/merge/", {"case": str(source.pk)}).status_code == 404
    assert client.post(f"/cases/{target.pk}/split/", {"document": str(first.pk)}).status_code == 404
    assert case_of(other) == source and not AuditEvent.objects.filter(action__startswith="case.").exists()


def test_a_refused_split_is_shown_and_nothing_moves(client: Any, actors: Any) -> None:
    first = assigned(actors.acme, NOISE)
    case = case_of(first)
    signed_in(client, actors.rita)
    response = client.post(f"/cases/{case.pk}/split/", {"document": str(first.pk)}, follow=True)
    assert response.status_code == 200 and "msg error" in response.content.decode()
    assert case_of(first) == case
