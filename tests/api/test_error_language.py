"""Every error answers in the one language the request asks for (Accept-Language: en or zh-Hans; Chinese, the
project's LANGUAGE_CODE, without one), with the same machine code in both."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from tests.api.test_intake import URL

pytestmark = pytest.mark.django_db

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
LANGUAGES = ("en", "zh-Hans")
OTHER = {"en": "zh-hans", "zh-Hans": "en"}


def _post_json(body: object, **headers: Any) -> Callable[[APIClient], Any]:
    return lambda client: client.post(URL, json.dumps(body), content_type="application/json", **headers)


ERROR_PATHS: dict[str, Callable[[APIClient], Any]] = {
    "validation": _post_json({"kind": "ticket"}),
    "nul_in_text": _post_json({"kind": "ticket", "text": "拖欠工资\u0000三个月"}),
    "lone_surrogate_in_metadata": _post_json({"kind": "ticket", "text": "拖欠工资", "metadata": {"note": "\ud800"}}),
    "refusal_with_code": lambda client: client.post(
        URL, {"kind": "contract", "file": SimpleUploadedFile("empty.txt", b"")}, format="multipart"
    ),
    "idempotency_key_too_long": _post_json({"kind": "ticket", "text": "拖欠工资"}, HTTP_IDEMPOTENCY_KEY="k" * 256),
    # A client of its own: the fixture's credentials would override the request's header.
    "unknown_api_key": lambda client: APIClient(HTTP_ACCEPT_LANGUAGE=client.defaults["HTTP_ACCEPT_LANGUAGE"]).get(
        URL, HTTP_AUTHORIZATION="Api-Key dg_00000000.not-a-real-key"
    ),
    "permission": lambda client: client.get("/api/v1/reviews/"),
    "document_not_found": lambda client: client.get(f"{URL}00000000-0000-0000-0000-000000000000/"),
    "no_such_api_path": lambda client: client.get("/api/v1/no-such-thing/"),
    "body_over_limit": lambda client: client.post(
        URL, b"{}", content_type="application/json", CONTENT_LENGTH=str(20 * 1024 * 1024)
    ),
}


def _error_in(acme_api: APIClient, path: str, language: str) -> tuple[int, dict[str, Any], bytes]:
    acme_api.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    # A server thread keeps the language of the last request it served: make that the other one.
    translation.activate(OTHER[language])
    try:
        response = ERROR_PATHS[path](acme_api)
    finally:
        translation.deactivate()
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.status_code, response.json()["error"], response.content


# The unstorable characters have a test of their own below: DRF already answered them in each language, only not
# saying what was wrong.
TRANSLATED = [path for path in ERROR_PATHS if path not in ("nul_in_text", "lone_surrogate_in_metadata")]


@pytest.mark.parametrize("path", TRANSLATED, ids=TRANSLATED)
def test_an_error_answers_in_the_requested_language_only_with_the_same_code(acme_api: APIClient, path: str) -> None:
    (en_status, en, _), (zh_status, zh, zh_raw) = (_error_in(acme_api, path, language) for language in LANGUAGES)
    assert en_status == zh_status >= 400
    assert en["code"] == zh["code"]
    assert en["message"] and not CJK.search(json.dumps(en, ensure_ascii=False)), en
    assert CJK.search(zh["message"]), zh
    for field_messages in zh.get("fields", {}).values():
        assert all(CJK.search(message) for message in field_messages), zh
    # Chinese as characters, not \u escapes, in every error body.
    assert zh["message"].encode() in zh_raw


def test_without_accept_language_errors_are_in_the_default_language(acme_api: APIClient) -> None:
    response = ERROR_PATHS["body_over_limit"](acme_api)
    assert response.status_code == 413 and CJK.search(response.json()["error"]["message"])
    assert response["Content-Language"] == "zh-hans"


@pytest.mark.parametrize(
    ("path", "says"),
    [("nul_in_text", "NUL character (U+0000)"), ("lone_surrogate_in_metadata", "lone surrogate (U+D800)")],
    ids=["nul", "lone-surrogate"],
)
def test_an_unstorable_character_is_named(acme_api: APIClient, path: str, says: str) -> None:
    (_, en, _), (_, zh, _) = (_error_in(acme_api, path, language) for language in LANGUAGES)
    assert en["code"] == zh["code"] == "invalid"
    assert says in en["message"] and not CJK.search(en["message"])
    code_point = says.split(" (")[1].rstrip(")")
    assert f"（{code_point}）" in zh["message"] and ("NUL 字符" in zh["message"] or "代理码位" in zh["message"])


def _portal(actors: Any, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(actors.alice)
    return client


@pytest.mark.parametrize("language", LANGUAGES)
def test_portal_refusals_and_pages_follow_the_language(actors: Any, language: str) -> None:
    client = _portal(actors, language)
    upload = client.post("/submit/upload/", {"file": SimpleUploadedFile("empty.txt", b"")})
    ticket = client.post("/submit/", {"text": "拖欠工资\u0000三个月", "channel": "phone"})
    missing = client.get("/no-such-page/")
    assert (upload.status_code, upload.json()["error"]["code"]) == (422, "empty_file")
    assert (ticket.status_code, missing.status_code) == (200, 404)
    texts = {
        "upload": upload.json()["error"]["message"],
        "ticket": ticket.content.decode(),
        "missing": missing.content.decode(),
    }
    if language == "en":
        assert not CJK.search(texts["upload"])
        assert "NUL character (U+0000)" in texts["ticket"]
        assert "There is no page at this address." in texts["missing"]
    else:
        assert CJK.search(texts["upload"])
        assert "NUL 字符（U+0000）" in texts["ticket"]
        assert "此地址没有页面。" in texts["missing"]
