"""The portal through Django's test client: submitting, reading results safely, reviewing, organisation admin.

Alice submits for Acme, Rita reviews for Acme, Oscar administers Globex and must see nothing of Acme's.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from contracts.intake.submission import Submission, document_submit
from contracts.models import ApiKey, Document, Job, Membership, ReviewTask, Role
from contracts.pipeline import job_run
from frontend.highlight import finding_display, finding_spans, highlight_html, pii_masked

pytestmark = pytest.mark.django_db

TICKET = "我是A市居民，电话13812345678，小区楼下餐馆油烟太大，多次反映至今未解决。<script>alert('x')</script>"


def signed_in(client: Any, user: Any) -> Any:
    client.force_login(user)
    return client


def ran(actors: Any, text: str = TICKET, kind: str = "ticket") -> Document:
    outcome = document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text))
    job_run(outcome.job.pk, "portal-test")
    return outcome.document


def test_highlighting_escapes_every_piece_and_splits_overlaps() -> None:
    text = "<b>甲方</b>应支付违约金"
    first: dict[str, Any] = {"id": "F1", "kind": "clause", "source": "rule", "span": [0, 8], "provenance": "rule"}
    second: dict[str, Any] = {"id": "F2", "kind": "clause", "source": "llm", "span": [3, 14], "provenance": "llm"}
    html = highlight_html(text, [first, second])
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert 'data-finding="F1 F2"' in html and 'class="f-both f-multi"' in html
    assert html.count("<mark") == 3


def test_a_rule_clause_marks_the_matched_words_not_its_whole_article() -> None:
    text = "第八条 违约责任\n任何一方违约，应支付违约金。"
    clause: dict[str, Any] = {"id": "F1", "kind": "clause", "source": "rule", "provenance": "rule"}
    clause |= {"span": [0, len(text)], "match_span": [4, 8]}
    html = str(highlight_html(text, [clause]))
    assert '<mark class="f-rule" data-finding="F1">违约责任</mark>' in html
    assert html.count("<mark") == 1
    # Without a usable match span the article itself is marked.
    whole = str(highlight_html(text, [{**clause, "match_span": [40, 50]}]))
    assert whole.startswith('<mark class="f-rule" data-finding="F1">第八条')


def test_pii_masking_keeps_offsets() -> None:
    findings: list[dict[str, Any]] = [{"kind": "entity", "source": "rule", "is_pii": True, "span": [2, 4]}]
    masked = pii_masked("联系张三", findings)
    assert len(masked) == 4 and "张三" not in masked


def test_a_grouped_finding_marks_every_occurrence_and_mention() -> None:
    text = "甲方应保密。乙方亦应保密。甲方付款。"
    clause: dict[str, Any] = {"id": "F1", "kind": "clause", "source": "rule", "provenance": "rule", "span": [0, 6]}
    clause |= {"match_span": [3, 5], "occurrences": [{"span": [6, 13], "match_span": [10, 12], "status": "stipulated"}]}
    party: dict[str, Any] = {"id": "F2", "kind": "entity", "label": "PARTY", "source": "rule", "span": [0, 2]}
    party["mentions"] = [{"span": [0, 2], "text": "甲方"}, {"span": [13, 15], "text": "甲方"}]
    html = str(highlight_html(text, [clause, party]))
    assert '<mark class="f-rule" data-finding="F1">保密</mark>' in html
    assert html.count('data-finding="F1"') == 2 and html.count('data-finding="F2"') == 2
    assert finding_display(clause, show_pii=True)["places"] == 2
    assert finding_display(party, show_pii=True)["places"] == 2


def test_personal_data_in_every_mention_is_masked_for_those_who_may_not_see_it() -> None:
    phone: dict[str, Any] = {"id": "F1", "kind": "entity", "label": "PHONE", "source": "rule", "is_pii": True}
    phone |= {"text": "13912345678", "value": "13912345678", "span": [2, 13]}
    phone["mentions"] = [{"span": [2, 13], "text": "13912345678"}, {"span": [17, 28], "text": "13912345678"}]
    shown = finding_display(phone, show_pii=False)
    assert "13912345678" not in repr(shown)
    assert finding_display(phone, show_pii=True)["mentions"][1]["text"] == "13912345678"
    masked = pii_masked("电话13912345678，或13912345678", [phone])
    assert "1391234" not in masked


def test_a_contract_result_lists_each_clause_type_once_and_the_parties_with_their_roles(
    client: Any, actors: Any
) -> None:
    contract = (
        "委托方（以下简称甲方）：华东精密仪器有限公司\n受托方（以下简称乙方）：北辰软件技术有限公司\n"
        "第一条 保密\n乙方对甲方的技术资料负有保密义务，不得向第三方披露。\n"
        "第二条 违约责任\n乙方违反保密义务的，应向甲方支付违约金五万元。\n"
    )
    document = ran(actors, contract, kind="contract")
    body = signed_in(client, actors.rita).get(f"/documents/{document.pk}/").content.decode()
    assert body.count('data-testid="party-roles"') == 2
    assert "（委托方、甲方）" in body
    labels = [f["label"] for f in document.results.latest("version").data["findings"] if f["kind"] == "clause"]
    assert labels.count("保密") == 1


def test_pages_are_chinese_by_default_and_english_on_request(client: Any, actors: Any) -> None:
    signed_in(client, actors.alice)
    assert "提交".encode() in client.get("/submit/").content
    client.post("/i18n/setlang/", {"language": "en", "next": "/submit/"})
    assert b"Submit ticket" in client.get("/submit/").content


def test_submitter_enters_a_ticket_and_sees_its_job(client: Any, actors: Any) -> None:
    signed_in(client, actors.alice)
    response = client.post(
        "/submit/", {"title": "油烟扰民", "text": TICKET, "channel": "phone", "region": "A市", "reference": "T-9"}
    )
    document = Document.objects.get(reference="T-9")
    assert response.status_code == 302 and response["Location"] == f"/documents/{document.pk}/"
    assert document.source == "portal" and document.metadata == {"channel": "phone", "region": "A市"}
    assert document.submitted_by == actors.alice
    assert "油烟扰民" in client.get("/jobs/?q=油烟").content.decode()
    assert "油烟扰民" not in client.get("/jobs/?state=failed").content.decode()


def test_empty_ticket_is_refused_with_a_clear_error(client: Any, actors: Any) -> None:
    signed_in(client, actors.alice)
    response = client.post("/submit/", {"text": "   ", "channel": "phone"})
    assert response.status_code == 200 and Document.objects.count() == 0
    assert 'role="alert"' in response.content.decode()


def test_upload_answers_json_per_file_and_refuses_binary(client: Any, actors: Any) -> None:
    signed_in(client, actors.alice)
    ok = client.post("/submit/upload/", {"file": SimpleUploadedFile("合同.txt", "第一条 违约责任".encode())})
    assert ok.status_code == 201 and ok.json()["url"].startswith("/documents/")
    again = client.post("/submit/upload/", {"file": SimpleUploadedFile("copy.txt", "第一条 违约责任".encode())})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    bad = client.post("/submit/upload/", {"file": SimpleUploadedFile("x.txt", b"\x00\x01\x02\xff" * 64)})
    assert bad.status_code == 422 and bad.json()["error"]["code"]
    stored = Document.objects.get()
    stored_name = str(stored.original.name)
    assert stored_name.endswith(".bin") and "合同" not in stored_name


def test_oversized_upload_is_refused_with_413_json(client: Any, actors: Any, settings: Any) -> None:
    settings.DOCGATE_MAX_UPLOAD_BYTES = 1000
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    signed_in(client, actors.alice)
    response = client.post("/submit/upload/", {"file": SimpleUploadedFile("big.txt", "甲".encode() * 2000)})
    assert response.status_code == 413 and response.json()["error"]["code"] == "file_too_large"
    assert Document.objects.count() == 0


def test_upload_requires_csrf(actors: Any) -> None:
    from django.test import Client

    client = signed_in(Client(enforce_csrf_checks=True), actors.alice)
    response = client.post("/submit/upload/", {"file": SimpleUploadedFile("a.txt", "甲方".encode())})
    assert response.status_code == 403


def test_result_shows_script_as_text_and_masks_pii_for_the_submitter(client: Any, actors: Any) -> None:
    document = ran(actors)
    body = signed_in(client, actors.alice).get(f"/documents/{document.pk}/").content.decode()
    assert "<script>alert" not in body and "&lt;script&gt;alert" in body
    assert "13812345678" not in body
    assert 'class="f-rule' in body and 'data-testid="gate-decision"' in body


def test_reviewer_sees_pii_in_full(client: Any, actors: Any) -> None:
    document = ran(actors)
    assert "13812345678" in signed_in(client, actors.rita).get(f"/documents/{document.pk}/").content.decode()


def test_submitters_search_cannot_find_a_document_by_the_phone_number_masked_for_her(client: Any, actors: Any) -> None:
    document = ran(actors)
    alice = signed_in(client, actors.alice)
    assert str(document.pk) not in alice.get("/jobs/", {"q": "13812345678"}).content.decode()
    assert str(document.pk) not in alice.get("/jobs/", {"q": "5678"}).content.decode()  # nor any part of it
    assert str(document.pk) in alice.get("/jobs/", {"q": "油烟"}).content.decode()  # what she does see still matches


def test_reviewers_search_finds_the_document_by_its_phone_number(client: Any, actors: Any) -> None:
    document = ran(actors)
    assert str(document.pk) in signed_in(client, actors.rita).get("/jobs/", {"q": "13812345678"}).content.decode()


def test_a_submitters_search_by_title_and_reference_is_unchanged(client: Any, actors: Any) -> None:
    submission = Submission(kind="ticket", source="api", text=TICKET, title="13812345678 来电", reference="R-2345")
    document = document_submit(organisation=actors.acme, submission=submission).document
    alice = signed_in(client, actors.alice)
    for query in ("来电", "13812345678", "R-2345"):
        assert str(document.pk) in alice.get("/jobs/", {"q": query}).content.decode(), query


def test_the_job_list_shows_a_submitter_an_untitled_tickets_text_masked(client: Any, actors: Any) -> None:
    ran(actors)
    listed = signed_in(client, actors.alice).get("/jobs/").content.decode()
    assert "13812345678" not in listed and "电话＊＊＊" in listed
    assert "13812345678" in signed_in(client, actors.rita).get("/jobs/").content.decode()


def test_outsider_cannot_read_another_organisations_result(client: Any, actors: Any) -> None:
    document = ran(actors)
    assert signed_in(client, actors.oscar).get(f"/documents/{document.pk}/").status_code == 404


def test_submitter_cannot_open_the_review_queue(client: Any, actors: Any) -> None:
    assert signed_in(client, actors.alice).get("/review/").status_code == 403


def test_reviewer_claims_corrects_and_finalizes_and_the_submitter_sees_version_2(client: Any, actors: Any) -> None:
    document = ran(actors)
    task = ReviewTask.objects.get(document=document)
    signed_in(client, actors.rita)
    assert str(task.pk) in client.get("/review/").content.decode()
    client.post(f"/review/{task.pk}/claim/")
    finding = document.latest_result().data["findings"][0]  # type: ignore[union-attr]
    client.post(f"/review/{task.pk}/decide/", {"finding_id": finding["id"], "decision": "correct", "label": "城乡建设"})
    client.post(f"/review/{task.pk}/response/", {"text": "已转交城管部门处理。"})
    page = client.get(f"/review/{task.pk}/").content.decode()
    assert "review.finding_decided" in page and "城乡建设" in page
    response = client.post(f"/review/{task.pk}/finalize/")
    assert response.status_code == 302 and response["Location"].endswith("?v=2")
    body = signed_in(client, actors.alice).get(f"/documents/{document.pk}/").content.decode()
    assert 'data-testid="result-version">版本 2' in body or "Version 2" in body
    assert "已转交城管部门处理。" in body and Job.objects.get(document=document).state == "done"


def test_org_switcher_changes_the_organisation(client: Any, actors: Any) -> None:
    Membership.objects.create(user=actors.alice, organisation=actors.globex, role=Role.SUBMITTER)
    document = ran(actors)
    signed_in(client, actors.alice)
    assert client.get(f"/documents/{document.pk}/").status_code == 200
    client.post("/organisation/switch/", {"organisation": "globex", "next": "/jobs/"})
    assert client.get(f"/documents/{document.pk}/").status_code == 404
    client.post("/organisation/switch/", {"organisation": "not-mine"})
    assert client.session["organisation_slug"] == "globex"


def test_admin_creates_a_key_shown_once_and_revokes_it(client: Any, actors: Any) -> None:
    signed_in(client, actors.oscar)
    client.post("/organisation/keys/", {"name": "hotline CRM"})
    first = client.get("/organisation/").content.decode()
    key = ApiKey.objects.get(name="hotline CRM")
    assert f"dg_{key.prefix}." in first
    assert f"dg_{key.prefix}." not in client.get("/organisation/").content.decode()
    client.post(f"/organisation/keys/{key.pk}/revoke/")
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_admin_configures_the_webhook_and_sees_the_secret_once(client: Any, actors: Any, settings: Any) -> None:
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    signed_in(client, actors.oscar)
    response = client.post("/organisation/webhook/", {"url": "http://127.0.0.1:9/hook", "active": "on"})
    assert response.status_code == 302
    assert "whsec_" in client.get("/organisation/").content.decode()


def test_non_admin_cannot_manage_the_organisation(client: Any, actors: Any) -> None:
    assert signed_in(client, actors.rita).get("/organisation/").status_code == 403


def test_a_stored_finding_with_wrongly_typed_places_still_highlights_and_displays() -> None:
    """Corrections stored before they were validated by the finding's type may hold anything where a list belongs."""
    stored: dict[str, Any] = {
        "id": "F1", "kind": "risk", "source": "rule", "span": [0, 2], "spans": 1, "mentions": 1, "occurrences": "x",
    }  # fmt: skip
    assert finding_spans(stored, 10) == [(0, 2)]
    shown = finding_display(stored, show_pii=False)
    assert shown["places"] == 1
