"""The cases API: members read their organisation's repeat cases, reviewers merge and split them (audited), and
nobody reaches another organisation's."""

from __future__ import annotations

from typing import Any

import pytest

from contracts.hotline.cases import ticket_case_assign
from contracts.hotline.models import Case, CaseJoin, CaseTicket
from contracts.intake.submission import Submission, document_submit
from contracts.models import AuditEvent, Document
from tests.api.test_review_workflow import signed_in

pytestmark = pytest.mark.django_db

URL = "/api/v1/cases/"
NOISE = "A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请环保部门尽快处理，谢谢。"
NOISE_AGAIN = "再次反映：A市A5区幸福家园小区旁边的烧烤店每天营业到凌晨两点，油烟和噪音严重扰民，请环保部门尽快处理。"
LIGHT = "A市A2区实验小学门口的路灯坏了一个多月，晚上孩子放学回家很不安全，希望城管部门尽快修好。"


def assigned(organisation: Any, text: str) -> Document:
    document = document_submit(
        organisation=organisation, submission=Submission(kind="ticket", source="api", text=text)
    ).document
    ticket_case_assign(document=document, text=text)
    return document


def case_of(document: Document) -> Case:
    return CaseTicket.objects.get(document=document).case


@pytest.fixture
def acme_cases(actors: Any) -> tuple[Document, Document, Document]:
    first, again, other = (assigned(actors.acme, t) for t in (NOISE, NOISE_AGAIN, LIGHT))
    assert case_of(first) == case_of(again) != case_of(other)
    return first, again, other


def test_members_and_the_api_key_read_the_organisations_cases(actors: Any, acme_api: Any, acme_cases: Any) -> None:
    first, again, _other = acme_cases
    for client in (acme_api, signed_in(actors.alice)):
        listed = client.get(URL, {"repeats": "true"}).json()
        assert listed["count"] == 1 and listed["results"][0]["ticket_count"] == 2
        detail = client.get(f"{URL}{case_of(first).pk}/").json()
        assert [t["document_id"] for t in detail["tickets"]] == [str(first.pk), str(again.pk)]
        assert detail["tickets"][1]["joined_by"] == CaseJoin.REPEAT and detail["tickets"][1]["repeats"] == str(first.pk)
    assert acme_api.get(URL, {"document": str(again.pk)}).json()["results"][0]["id"] == str(case_of(first).pk)


def test_outsider_sees_no_case_and_cannot_merge_or_split(actors: Any, acme_cases: Any) -> None:
    first, again, other = acme_cases
    oscar = signed_in(actors.oscar)  # an admin, but of Globex
    assert oscar.get(URL).json()["count"] == 0
    target = case_of(first)
    assert oscar.get(f"{URL}{target.pk}/").status_code == 404
    merged = oscar.post(f"{URL}{target.pk}/merge/", {"cases": [str(case_of(other).pk)]}, format="json")
    split = oscar.post(f"{URL}{target.pk}/split/", {"documents": [str(again.pk)]}, format="json")
    assert merged.status_code == split.status_code == 404 and merged.json()["error"]["code"] == "not_found"
    assert case_of(again) == target and case_of(other) != target
    assert not AuditEvent.objects.filter(action__startswith="case.").exists()


def test_submitters_and_api_keys_cannot_merge(actors: Any, acme_api: Any, acme_cases: Any) -> None:
    first, _again, other = acme_cases
    body = {"cases": [str(case_of(other).pk)]}
    for client in (acme_api, signed_in(actors.alice)):
        assert client.post(f"{URL}{case_of(first).pk}/merge/", body, format="json").status_code == 403
    assert case_of(other) != case_of(first)


def test_reviewer_merges_cases_and_the_merge_is_audited(actors: Any, acme_cases: Any) -> None:
    first, again, other = acme_cases
    target, source = case_of(first), case_of(other)
    rita = signed_in(actors.rita)
    response = rita.post(f"{URL}{target.pk}/merge/", {"cases": [str(source.pk)]}, format="json")
    assert response.status_code == 200, response.json()
    assert [t["document_id"] for t in response.json()["tickets"]] == [str(d.pk) for d in (first, again, other)]
    source.refresh_from_db()
    assert source.merged_into_id == target.pk and case_of(other) == target
    assert CaseTicket.objects.get(document=other).joined_by == CaseJoin.REVIEWER
    event = AuditEvent.objects.get(action="case.merge")
    assert event.actor_user == actors.rita and event.object_id == str(target.pk)
    assert event.before is not None and event.after is not None
    assert event.before["sources"][0]["tickets"] == [str(other.pk)] and len(event.after["tickets"]) == 3
    assert [c["id"] for c in rita.get(URL).json()["results"]] == [str(target.pk)]  # the merged case is not listed
    again_merge = rita.post(f"{URL}{target.pk}/merge/", {"cases": [str(source.pk)]}, format="json")
    assert again_merge.status_code == 409 and again_merge.json()["error"]["code"] == "already_merged"


def test_reviewer_cannot_merge_another_organisations_case(actors: Any, acme_cases: Any) -> None:
    first, _again, _other = acme_cases
    theirs = case_of(assigned(actors.globex, LIGHT))
    response = signed_in(actors.rita).post(
        f"{URL}{case_of(first).pk}/merge/", {"cases": [str(theirs.pk)]}, format="json"
    )
    assert response.status_code == 404
    assert theirs.tickets.count() == 1 and theirs.merged_into_id is None


def test_reviewer_splits_a_ticket_off_and_a_rerun_keeps_the_split(actors: Any, acme_cases: Any) -> None:
    first, again, _other = acme_cases
    case = case_of(first)
    rita = signed_in(actors.rita)
    response = rita.post(f"{URL}{case.pk}/split/", {"documents": [str(again.pk)]}, format="json")
    assert response.status_code == 201, response.json()
    new = case_of(again)
    assert response.json()["id"] == str(new.pk) != str(case.pk) and case.tickets.count() == 1
    event = AuditEvent.objects.get(action="case.split")
    assert event.before is not None and event.after is not None
    assert event.before["tickets"] == [str(first.pk), str(again.pk)] and event.after["new_case"]["tickets"] == [
        str(again.pk)
    ]
    assert ticket_case_assign(document=again, text=NOISE_AGAIN).case == new  # a rerun does not undo the split


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"documents": []}, 400, "invalid"),
        ({"documents": ["00000000-0000-0000-0000-000000000000"]}, 409, "not_in_case"),
        ({"documents": "all"}, 400, "invalid"),
    ],
    ids=["empty", "not-in-case", "not-a-list"],
)
def test_bad_split_is_refused_and_nothing_moves(
    actors: Any, acme_cases: Any, body: dict[str, Any], status: int, code: str
) -> None:
    first, again, _other = acme_cases
    response = signed_in(actors.rita).post(f"{URL}{case_of(first).pk}/split/", body, format="json")
    assert response.status_code == status and response.json()["error"]["code"] == code
    assert case_of(again) == case_of(first)


def test_splitting_every_ticket_or_merging_a_case_into_itself_is_refused(actors: Any, acme_cases: Any) -> None:
    first, again, _other = acme_cases
    case, rita = case_of(first), signed_in(actors.rita)
    whole = rita.post(f"{URL}{case.pk}/split/", {"documents": [str(first.pk), str(again.pk)]}, format="json")
    itself = rita.post(f"{URL}{case.pk}/merge/", {"cases": [str(case.pk)]}, format="json")
    assert (whole.status_code, whole.json()["error"]["code"]) == (409, "whole_case")
    assert (itself.status_code, itself.json()["error"]["code"]) == (409, "same_case")
