"""Hostile input the intake API must refuse with a clear JSON 4xx and nothing stored, or read without letting it reach
beyond itself (complements test_intake)."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from pypdf import PdfWriter

from contracts.intake.submission import IntakeError, Submission, document_submit
from contracts.models import AuditEvent, Document, FindingDecision, Job, Membership, Role
from contracts.pipeline import job_run
from tests.api.test_intake import URL, assert_nothing_stored, upload
from tests.api.test_review_workflow import URL as REVIEWS
from tests.api.test_review_workflow import needs_review_task, signed_in
from tests.files import cjk_pdf_bytes, pdf_bytes
from tests.hostile_documents import listener_running, odt_linking, secret_planted, targets_of
from tests.unit.test_converters import _need

pytestmark = pytest.mark.django_db


def blank_pdf(pages: int) -> bytes:
    """A real PDF with `pages` empty pages."""
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=72, height=72)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def assert_refused(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content[:500]
    error = response.json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code
    return dict(error)


def test_pdf_claiming_ten_million_pages_is_read_by_its_real_pages_quickly(acme_api: Any) -> None:
    # The page tree is walked, not trusted: a lying /Count costs nothing and cannot trigger a huge loop.
    lying = pdf_bytes(["Contract"]).replace(b"/Count 1", b"/Count 10000000")
    started = time.perf_counter()
    response = upload(acme_api, "huge.pdf", lying)
    assert time.perf_counter() - started < 10
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    job_run(Job.objects.get(document=document).pk, "hostile-test")
    document.refresh_from_db()
    assert "Contract" in document.text


def test_a_500_page_pdf_is_accepted_at_intake_and_read_in_the_worker(acme_api: Any, settings: Any) -> None:
    pages = [[f"第{n}页 本页约定第{n}项服务内容。"] for n in range(1, settings.DOCGATE_MAX_PDF_PAGES + 1)]
    response = upload(acme_api, "long-contract.pdf", cjk_pdf_bytes(pages))
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    assert document.text == "", "intake opened and counted the PDF, it did not read it"
    job_run(Job.objects.get(document=document).pk, "hostile-test")
    document.refresh_from_db()
    assert document.text.count("\n") == len(pages) - 1 and "第500页" in document.text


def test_pdf_with_more_real_pages_than_the_limit_is_a_413(acme_api: Any, settings: Any) -> None:
    assert_refused(upload(acme_api, "long.pdf", blank_pdf(settings.DOCGATE_MAX_PDF_PAGES + 100)), 413, "too_many_pages")
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_fifty_megabyte_upload_is_a_413_before_parsing(acme_api: Any, settings: Any) -> None:
    response = upload(acme_api, "big.txt", b"a" * (50 * 1024 * 1024))
    assert_refused(response, 413, "file_too_large")
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize("depth", [1_000, 100_000], ids=["thousand", "hundred-thousand"])
def test_deeply_nested_json_body_is_a_400_not_a_crash(acme_api: Any, settings: Any, depth: int) -> None:
    body = '{"kind": "ticket", "text": "路灯坏了", "metadata": {"x": ' + "[" * depth + "]" * depth + "}}"
    response = acme_api.generic("POST", URL, body, content_type="application/json")
    assert_refused(response, 400)
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize(
    "body",
    [b'{"kind": "ticket", "text": "\xff\xfe\xfa"}', b"[1, 2, 3]", b'"just a string"'],
    ids=["invalid-utf8-json", "json-array", "json-string"],
)
def test_json_body_that_is_not_a_utf8_object_is_a_400(acme_api: Any, settings: Any, body: bytes) -> None:
    assert_refused(acme_api.generic("POST", URL, body, content_type="application/json"), 400)
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_utf16_without_a_byte_order_mark_is_refused_as_binary(acme_api: Any, settings: Any) -> None:
    data = "第一条 合同期限为一年。".encode("utf-16-le")
    assert_refused(upload(acme_api, "contract.txt", data), 422, "binary_content")
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_lone_surrogates_in_json_text_are_a_400_naming_the_fields(acme_api: Any, settings: Any) -> None:
    body = json.dumps({"kind": "ticket", "text": "路灯坏了\ud800请维修\udfff。", "title": "标题\ud83d"})
    error = assert_refused(acme_api.generic("POST", URL, body, content_type="application/json"), 400, "invalid")
    assert set(error["fields"]) == {"text", "title"}
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize(
    "name",
    ["..\\..\\windows\\system32\\config", "/etc/shadow", "../" * 40 + "x.txt", "a" * 600 + ".txt", "合同\x00.exe.txt"],
    ids=["windows-traversal", "absolute-path", "deep-traversal", "overlong-name", "nul-in-name"],
)
def test_hostile_file_names_never_become_storage_paths(acme_api: Any, settings: Any, name: str) -> None:
    response = upload(acme_api, name, f"第一条 付款方式：银行转账。{len(name)}".encode())
    assert response.status_code == 201, response.json()
    document = Document.objects.get(pk=response.json()["document"]["id"])
    stored = Path(document.original.path).resolve()
    assert stored.is_relative_to(Path(settings.MEDIA_ROOT).resolve())
    assert len(document.original_name) <= 255 and "\x00" not in document.original_name


def test_an_odt_linking_local_files_and_urls_brings_none_of_them_into_the_document(
    acme_api: Any, tmp_path: Path
) -> None:
    # tests/unit/test_converter_isolation.py holds the other kinds and the isolation levels; this is the way in.
    _need("office")
    with listener_running() as listener, secret_planted(tmp_path) as secret:
        data = odt_linking(targets_of(secret, listener))
        secret.write()
        response = upload(acme_api, "linked.odt", data)
        assert response.status_code == 201, response.json()
        document = Document.objects.get(pk=response.json()["document"]["id"])
        job_run(Job.objects.get(document=document).pk, "hostile-test")
        document.refresh_from_db()
        assert "Before." in document.text and "After." in document.text
        assert secret.token not in document.text and not secret.was_read()
        assert listener.requests == [], listener.requests


# Item 6 of the security review: what PostgreSQL cannot store, and ids that only look like UUIDs.

UNSTORABLE: dict[str, dict[str, Any]] = {
    "nul-in-a-value": {"channel": "phone\x00"},
    "lone-surrogate-in-a-value": {"note": "市民\ud800来电"},
    "nul-in-a-key": {"ca\x00ller": "x"},
    "lone-surrogate-deep-inside": {"caller": {"names": ["王", "\udfff"]}},
}


@pytest.mark.parametrize("metadata", list(UNSTORABLE.values()), ids=list(UNSTORABLE))
def test_metadata_postgresql_cannot_store_is_a_400_naming_the_field(
    acme_api: Any, settings: Any, metadata: dict[str, Any]
) -> None:
    body = json.dumps({"kind": "ticket", "text": "路灯坏了，请维修。", "metadata": metadata})
    error = assert_refused(acme_api.generic("POST", URL, body, content_type="application/json"), 400, "invalid")
    assert set(error["fields"]) == {"metadata"}
    form = {"kind": "ticket", "text": "路灯坏了，请维修。", "metadata": json.dumps(metadata)}
    assert_refused(acme_api.post(URL, form, format="multipart"), 400, "invalid")
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_the_intake_service_refuses_such_metadata_whoever_calls_it(actors: Any, settings: Any) -> None:
    submission = Submission(kind="ticket", source="portal", text="路灯坏了。", metadata=UNSTORABLE["nul-in-a-key"])
    with pytest.raises(IntakeError) as refused:
        document_submit(organisation=actors.acme, submission=submission)
    assert (refused.value.code, refused.value.status) == ("invalid_metadata", 400)
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize("corrected", list(UNSTORABLE.values()), ids=list(UNSTORABLE))
def test_a_correction_postgresql_cannot_store_is_a_400_and_nothing_is_decided(
    actors: Any, corrected: dict[str, Any]
) -> None:
    task = needs_review_task(actors)
    rita = signed_in(actors.rita)
    assert rita.post(f"{REVIEWS}{task.pk}/claim/").status_code == 200
    body = json.dumps({"finding_id": "F1", "decision": "correct", "corrected": {"label": "定金", **corrected}})
    response = rita.generic("POST", f"{REVIEWS}{task.pk}/decisions/", body, content_type="application/json")
    assert_refused(response, 400, "invalid_correction")
    assert not FindingDecision.objects.exists()
    assert not AuditEvent.objects.filter(action="review.finding_decided").exists()


NOT_UUIDS = ["0" * 36, "-" * 36, "0a000000-0000-4000-8000-0000000000-1"]


@pytest.mark.parametrize("task_id", NOT_UUIDS, ids=["36-hex-digits", "36-dashes", "misplaced-dash"])
@pytest.mark.parametrize(
    ("method", "action", "body"),
    [
        ("get", "", None),
        ("post", "claim/", None),
        ("post", "release/", None),
        ("post", "decisions/", {"finding_id": "F1", "decision": "approve"}),
        ("post", "response/", {"text": "您好。"}),
        ("post", "finalize/", None),
        ("post", "reassign/", {"username": "rita"}),
    ],
    ids=["detail", "claim", "release", "decisions", "response", "finalize", "reassign"],
)
def test_a_review_id_that_only_looks_like_a_uuid_is_a_404(
    actors: Any, task_id: str, method: str, action: str, body: dict[str, str] | None
) -> None:
    needs_review_task(actors)
    ada = get_user_model().objects.create_user("ada", password="ada-password-1")
    Membership.objects.create(user=ada, organisation=actors.acme, role=Role.ADMIN)
    assert len(task_id) == 36
    response = getattr(signed_in(ada), method)(f"{REVIEWS}{task_id}/{action}", body, format="json")
    assert_refused(response, 404, "not_found")
