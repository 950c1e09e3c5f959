"""One masking policy for the API and the portal: personal data by role, search over what the searcher may see.

Alice submits for Acme and sees personal data masked, with her portal session in the API as in the portal; Rita
reviews for Acme and sees it in full; Acme's API key is the system that sent the documents and sees it in full.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from contracts.intake.submission import Submission, document_submit
from contracts.models import Document
from contracts.pipeline import job_run

pytestmark = pytest.mark.django_db

PHONE, RESIDENT_ID = "13812345678", "11010519491231002X"
TICKET = f"我是A市居民，电话{PHONE}，身份证号{RESIDENT_ID}，小区楼下餐馆油烟太大，多次反映至今未解决。"
MASKED_PHONE, MASKED_ID = "＊" * len(PHONE), "＊" * len(RESIDENT_ID)  # entity findings: hidden altogether
URL = "/api/v1/documents/"


def ran(actors: Any, text: str = TICKET) -> Document:
    outcome = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=text))
    job_run(outcome.job.pk, "personal-data-test")
    return outcome.document


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def shown(client: APIClient, document: Document) -> str:
    """Everything the API answers about the document: its detail, its result and its list row, as one string."""
    detail = client.get(f"{URL}{document.pk}/")
    result = client.get(f"{URL}{document.pk}/result/")
    listed = client.get(URL)
    assert detail.status_code == result.status_code == listed.status_code == 200
    return json.dumps([detail.json(), result.json(), listed.json()], ensure_ascii=False)


def test_submitter_reads_the_phone_number_and_resident_id_masked_through_the_api(actors: Any) -> None:
    document = ran(actors)
    body = shown(session(actors.alice), document)
    assert PHONE not in body and RESIDENT_ID not in body
    text = session(actors.alice).get(f"{URL}{document.pk}/").json()["text"]
    assert f"电话{MASKED_PHONE}，身份证号{MASKED_ID}，小区楼下餐馆油烟太大" in text  # as the portal shows it
    assert len(text) == len(TICKET)  # the same length: the result's spans still point at the right places


def test_submitter_sees_the_entity_findings_of_personal_data_masked(actors: Any) -> None:
    document = ran(actors)
    data = session(actors.alice).get(f"{URL}{document.pk}/result/").json()["data"]
    personal = [f for f in data["findings"] if f["kind"] == "entity" and f.get("is_pii")]
    assert {f["label"] for f in personal} >= {"PHONE", "ID_NUMBER"}
    for finding in personal:
        assert set(finding["text"]) <= {"＊"} and all(set(m["text"]) <= {"＊"} for m in finding["mentions"])
        assert finding["span"] and finding["mentions"][0]["span"]  # where it is stays: only what it says is hidden


def test_reviewer_reads_personal_data_in_full_through_the_api(actors: Any) -> None:
    document = ran(actors)
    body = shown(session(actors.rita), document)
    assert PHONE in body and RESIDENT_ID in body


def test_the_organisations_api_key_reads_personal_data_in_full(actors: Any, acme_api: Any) -> None:
    document = ran(actors)
    body = shown(acme_api, document)
    assert PHONE in body and RESIDENT_ID in body
    assert acme_api.get(f"{URL}{document.pk}/").json()["text"] == TICKET


def with_model_findings(document: Document) -> None:
    """Add to the stored result what a model may answer about a ticket: a name the PII rules cannot see (no cue
    announces it), a quote holding it and the phone number, and a reply that greets the caller by name."""
    result = document.latest_result()
    assert result is not None
    start = document.text.index(NAME)
    data = dict(result.data)
    data["findings"] = [
        *data["findings"],
        {
            "id": "F90",
            "kind": "entity",
            "label": "PERSON",
            "source": "llm",
            "is_pii": True,
            "text": NAME,
            "span": [start, start + len(NAME)],
            "mentions": [{"span": [start, start + len(NAME)], "text": NAME}],
        },
        {"id": "F91", "kind": "urgency", "label": "high", "source": "llm", "evidence": f"{NAME}，电话{PHONE}"},
    ]
    data["suggested_response"] = f"{NAME}您好，我们将致电{PHONE}与您联系。"
    type(result).objects.filter(pk=result.pk).update(data=data)


NAME = "王小明"
NAMED_TICKET = f"{NAME}反映：电话{PHONE}，小区楼下餐馆油烟太大。{NAME}希望尽快处理。"


def test_a_name_only_the_model_found_is_masked_everywhere_a_submitter_reads_it(client: Any, actors: Any) -> None:
    document = ran(actors, NAMED_TICKET)
    with_model_findings(document)
    body = shown(session(actors.alice), document)
    assert NAME not in body and PHONE not in body
    assert "您好，我们将致电" in body  # the reply itself still reads
    client.force_login(actors.alice)
    page = client.get(f"/documents/{document.pk}/").content.decode()
    assert NAME not in page and PHONE not in page
    assert NAME in shown(session(actors.rita), document)


def test_a_submitters_search_cannot_find_a_name_only_the_model_found(client: Any, actors: Any) -> None:
    document = ran(actors, NAMED_TICKET)
    with_model_findings(document)
    client.force_login(actors.alice)
    assert str(document.pk) not in client.get("/jobs/", {"q": NAME}).content.decode()
    client.force_login(actors.rita)
    assert str(document.pk) in client.get("/jobs/", {"q": NAME}).content.decode()
