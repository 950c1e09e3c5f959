"""Intake over the API: accepted documents, refused input (clear JSON 4xx, nothing half-stored), scoping."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from contracts.api.serializers import DocumentSerializer
from contracts.models import ApiKey, AuditEvent, Document, Job, JobState
from contracts.pipeline import job_run
from tests.files import cjk_pdf_bytes, docx_bytes, docx_with_xml, pdf_bytes, zip_bomb_docx

pytestmark = pytest.mark.django_db

URL = "/api/v1/documents/"
TICKET = "我家小区门口的垃圾站臭气熏天，已经反映三次了，请尽快处理。"


def upload(client: Any, name: str, data: bytes, kind: str = "contract", **extra: Any) -> Any:
    return client.post(URL, {"kind": kind, "file": SimpleUploadedFile(name, data), **extra}, format="multipart")


def extracted(response: Any) -> Document:
    """The uploaded document after its job ran: a PDF's or Word file's text is read by the worker, not intake."""
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    assert document.text == "", "intake only checks a PDF or Word file"
    job_run(Job.objects.get(document=document).pk, "intake-test")
    document.refresh_from_db()
    return document


def assert_nothing_stored(media_root: str) -> None:
    assert Document.objects.count() == 0
    assert Job.objects.count() == 0
    stored = [f for _, _, files in os.walk(media_root) for f in files] if os.path.isdir(media_root) else []
    assert stored == []


def test_ticket_as_json_text_is_stored_with_a_queued_job(acme_api: Any, actors: Any) -> None:
    response = acme_api.post(
        URL,
        {"kind": "ticket", "text": TICKET, "channel": "phone", "region": "A市", "reference": "REF-1"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["duplicate"] is False
    assert body["document"]["job"]["state"] == "queued"
    document = Document.objects.get(pk=body["document"]["id"])
    assert document.organisation == actors.acme
    assert document.text == TICKET
    assert document.metadata == {"channel": "phone", "region": "A市"}
    assert document.reference == "REF-1"
    assert document.source == "api"
    assert AuditEvent.objects.filter(action="document.submitted", object_id=str(document.pk)).exists()


@pytest.mark.parametrize(
    ("encoding", "expected_label"),
    [("utf-8", "utf-8"), ("utf-8-sig", "utf-8"), ("gbk", "gb18030"), ("gb18030", "gb18030"), ("utf-16", "utf-16")],
    ids=["utf8", "utf8-bom", "gbk", "gb18030-only-chars", "utf16-bom"],
)
def test_text_files_are_decoded_by_content(acme_api: Any, encoding: str, expected_label: str) -> None:
    # 𠀀 (U+20000) exists only in GB18030's four-byte range, not in GBK.
    text = "第一条 合同期限为两年。" + ("𠀀" if encoding == "gb18030" else "")
    response = upload(acme_api, "contract.txt", text.encode(encoding))
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    assert document.text == text
    assert document.encoding == expected_label
    assert document.encoding_confidence is not None and 0.5 < document.encoding_confidence <= 1.0
    assert acme_api.get(f"{URL}{document.pk}/").json()["encoding_confidence"] == document.encoding_confidence


def test_the_answer_to_an_upload_is_the_documents_api_representation(acme_api: Any) -> None:
    # Intake builds its answer without a DocumentSerializer per request; it must say what the API says elsewhere.
    response = upload(acme_api, "合同.pdf", cjk_pdf_bytes([["第一条 违约金为合同总额的百分之五。"]]), title="租赁合同")
    assert response.status_code == 201, response.json()
    answered = response.json()["document"]
    document = Document.objects.get(pk=answered["id"])
    assert answered == json.loads(json.dumps(DocumentSerializer(document).data))
    assert answered["job"]["state"] == "queued" and answered["result_version"] is None


def test_docx_is_recognised_by_content_even_when_named_txt(acme_api: Any) -> None:
    response = upload(
        acme_api, "named-wrongly.txt", docx_bytes(["第一条 保密", "乙方应对甲方的商业秘密承担保密义务。"])
    )
    document = extracted(response)
    assert document.content_type.endswith("wordprocessingml.document")
    assert document.text == "第一条 保密\n乙方应对甲方的商业秘密承担保密义务。"
    stored_name = document.original.name or ""
    assert stored_name.endswith(".bin") and "named-wrongly" not in stored_name


def test_pdf_text_layer_is_extracted(acme_api: Any) -> None:
    document = extracted(upload(acme_api, "contract.pdf", pdf_bytes(["Term: two years", "Governing law: PRC"])))
    assert "Term: two years" in document.text and document.content_type == "application/pdf"
    body = acme_api.get(f"{URL}{document.pk}/").json()
    assert "Term: two years" in body["text"] and body["job"]["state"] in ("done", "needs_review")


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({}, "invalid"),
        ({"kind": "ticket", "text": ""}, "invalid"),
        ({"kind": "ticket", "text": "  \n\u3000 "}, "invalid"),
        ({"kind": "invoice", "text": TICKET}, "invalid"),
        ({"text": TICKET}, "invalid"),
        ({"kind": "ticket"}, "invalid"),
        ({"kind": "ticket", "text": TICKET, "metadata": "not an object"}, "invalid"),
    ],
    ids=["empty-body", "empty-text", "blank-text", "unknown-kind", "missing-kind", "no-content", "bad-metadata"],
)
def test_bad_json_submissions_get_a_clear_400(acme_api: Any, settings: Any, payload: dict[str, Any], code: str) -> None:
    response = acme_api.post(URL, payload, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_malformed_json_is_a_400(acme_api: Any, settings: Any) -> None:
    response = acme_api.generic("POST", URL, '{"kind": "ticket", "text": ', content_type="application/json")
    assert response.status_code == 400
    assert "error" in response.json()
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize(
    ("name", "data", "status", "code"),
    [
        ("empty.txt", b"", 422, "empty_file"),
        ("garbage.txt", bytes(range(256)) * 8, 422, "binary_content"),
        ("bad-gbk.txt", "合同".encode("gbk") + b"\x81\x20\xff\xfe\x80", 422, "undecodable_text"),
        ("contract.docx", b"PK\x03\x04 this is not really a zip archive", 422, "invalid_docx"),
        ("broken.pdf", b"%PDF-1.4\n garbage", 422, "invalid_pdf"),
    ],
    ids=["zero-bytes", "binary-garbage-named-txt", "invalid-gbk", "docx-not-a-zip", "pdf-broken"],
)
def test_unreadable_files_are_refused_and_nothing_is_stored(
    acme_api: Any, settings: Any, name: str, data: bytes, status: int, code: str
) -> None:
    response = upload(acme_api, name, data)
    assert response.status_code == status, response.json()
    assert response.json()["error"]["code"] == code
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_a_pdf_without_text_is_kept_and_its_job_fails_saying_why(acme_api: Any) -> None:
    response = upload(acme_api, "scan.pdf", pdf_bytes(None))
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    job_run(Job.objects.get(document=document).pk, "intake-test")
    body = acme_api.get(f"{URL}{document.pk}/").json()
    assert body["job"]["state"] == JobState.FAILED
    error = body["job"]["error"]
    assert error["code"] == "pdf_without_text" and error["stage"] == "extract"
    # The worker writes it in the default language (LANGUAGE_CODE): no request asked for another.
    assert "没有文字层" in error["message"]
    document.refresh_from_db()
    assert document.original and document.original.read().startswith(b"%PDF-"), "nothing is lost"


def test_a_word_file_broken_inside_fails_in_the_worker_with_its_code(acme_api: Any) -> None:
    # Intake parses only the prolog (a DTD there is refused at once: test_hostile_archives); the rest is the worker's.
    unclosed = '<?xml version="1.0"?><w:document xmlns:w="urn:w"><w:body><w:p>'
    response = upload(acme_api, "unclosed.docx", docx_with_xml(unclosed))
    assert response.status_code == 201, response.json()
    job = Job.objects.get(document_id=response.json()["document"]["id"])
    job_run(job.pk, "intake-test")
    job.refresh_from_db()
    assert job.state == JobState.FAILED and (job.error or {}).get("code") == "invalid_docx"


def test_zip_bomb_disguised_as_docx_is_refused(acme_api: Any, settings: Any) -> None:
    bomb = zip_bomb_docx()
    assert len(bomb) < 1024 * 1024  # small on the wire, 200 MB expanded
    response = upload(acme_api, "innocent.docx", bomb)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "archive_too_large"
    assert_nothing_stored(settings.MEDIA_ROOT)


@override_settings(DOCGATE_MAX_UPLOAD_BYTES=1024, DATA_UPLOAD_MAX_MEMORY_SIZE=1024 + 2048)
def test_file_over_the_size_limit_is_a_413(acme_api: Any, settings: Any) -> None:
    response = upload(acme_api, "big.txt", ("合同条款" * 200).encode())
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "file_too_large"
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_request_body_far_over_the_limit_is_refused_before_parsing(acme_api: Any, settings: Any) -> None:
    settings.DOCGATE_MAX_UPLOAD_BYTES = 1024
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    response = upload(acme_api, "big.txt", b"a" * 20_000)
    assert response.status_code == 413
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_path_traversal_file_name_never_becomes_a_storage_path(acme_api: Any, settings: Any) -> None:
    response = upload(acme_api, "../../etc/passwd", "第一条 付款方式：银行转账。".encode())
    assert response.status_code == 201
    document = Document.objects.get(pk=response.json()["document"]["id"])
    stored = Path(document.original.path).resolve()
    assert stored.is_relative_to(Path(settings.MEDIA_ROOT).resolve())
    stored_name = document.original.name or ""
    assert ".." not in stored_name and "passwd" not in stored_name


def test_missing_api_key_is_a_401(client: Any, actors: Any) -> None:
    response = client.post(URL, {"kind": "ticket", "text": TICKET}, content_type="application/json")
    assert response.status_code == 401
    assert response.json()["error"]["message"]


def test_unknown_api_key_is_a_401(actors: Any) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Api-Key dg_00000000.not-a-real-key")
    assert client.get(URL).status_code == 401


def test_revoked_api_key_is_a_401(acme_api: Any, actors: Any) -> None:
    from django.utils import timezone

    assert acme_api.get(URL).status_code == 200
    ApiKey.objects.filter(organisation=actors.acme).update(revoked_at=timezone.now())
    response = acme_api.get(URL, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 401
    assert "revoked" in response.json()["error"]["message"]


def test_api_key_use_is_recorded(acme_api: Any, actors: Any) -> None:
    assert acme_api.get(URL).status_code == 200
    assert ApiKey.objects.get(organisation=actors.acme).last_used_at is not None


def test_outsider_gets_404_for_another_organisations_document(acme_api: Any, globex_api: Any) -> None:
    document_id = acme_api.post(URL, {"kind": "ticket", "text": TICKET}, format="json").json()["document"]["id"]
    assert acme_api.get(f"{URL}{document_id}/").status_code == 200
    for path in (f"{URL}{document_id}/", f"{URL}{document_id}/result/"):
        response = globex_api.get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert globex_api.get(URL).json()["count"] == 0
    job_id = Job.objects.get(document_id=document_id).pk
    assert globex_api.get(f"/api/v1/jobs/{job_id}/").status_code == 404


def test_session_user_sees_only_their_organisation(client: Any, acme_api: Any, actors: Any) -> None:
    acme_api.post(URL, {"kind": "ticket", "text": TICKET}, format="json")
    client.force_login(actors.oscar)
    assert client.get(URL).json()["count"] == 0
    client.force_login(actors.rita)
    assert client.get(URL).json()["count"] == 1
