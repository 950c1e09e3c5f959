"""Hostile zip archives and XML (.docx, .odt), over the API and the portal: a clear 4xx at intake with nothing
stored, or a clear `invalid_docx` from the worker's extraction; never a 500, never an entity expanded."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.extraction import extract, intake_check
from tests.api.test_intake import assert_nothing_stored, upload
from tests.files import docx_bytes, docx_entity_bomb, docx_with_xml, odt_bytes, zip_patched

LIMITS = ExtractionLimits(max_unzipped_bytes=50 * 1024 * 1024, max_pdf_pages=500, max_text_chars=2_000_000)
ENCODINGS = ["utf-8", "utf-16", "utf-16-be"]  # UTF-16 with a byte-order mark, and big-endian without one
ODT_CONTENT = (
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>'
)


@pytest.fixture(params=["api", "portal"])
def send(request: pytest.FixtureRequest, actors: Any, client: Any) -> Callable[[str, bytes], Any]:
    """Upload one file as Acme, through the API (with Acme's key) or the portal (signed in as Alice)."""
    if request.param == "api":
        api = request.getfixturevalue("acme_api")
        return lambda name, data: upload(api, name, data)
    client.force_login(actors.alice)
    return lambda name, data: client.post("/submit/upload/", {"file": SimpleUploadedFile(name, data)})


def assert_refused(response: Any, code: str) -> None:
    assert response.status_code == 422, response.content[:500]
    error = response.json()["error"]
    assert error["code"] == code and error["message"]


# Item 3 of the security review: entity declarations, in whatever encoding the XML is written.


@pytest.mark.django_db
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_an_entity_bomb_in_any_encoding_is_refused_at_intake(send: Any, settings: Any, encoding: str) -> None:
    assert_refused(send("laughs.docx", docx_entity_bomb(encoding=encoding)), "invalid_docx")
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_worker_refuses_a_dtd_without_expanding_it(encoding: str) -> None:
    # A document stored before intake checked for a DTD still never has its entities expanded.
    with pytest.raises(ExtractionError) as refused:
        extract(docx_entity_bomb(encoding=encoding), LIMITS)
    assert refused.value.code == "invalid_docx" and "DTD" in refused.value.message


def test_a_dtd_without_entities_is_refused_too() -> None:
    plain_doctype = '<?xml version="1.0"?><!DOCTYPE w:document SYSTEM "w.dtd"><w:document/>'
    for check in (intake_check, extract):
        with pytest.raises(ExtractionError) as refused:
            check(docx_with_xml(plain_doctype), LIMITS)
        assert refused.value.code == "invalid_docx"


def test_a_utf16_word_document_without_a_dtd_is_still_read() -> None:
    document = (
        '<?xml version="1.0" encoding="UTF-16"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        "<w:body><w:p><w:r><w:t>第一条 合同期限为一年。</w:t></w:r></w:p></w:body></w:document>"
    )
    assert intake_check(docx_with_xml(document.encode("utf-16")), LIMITS) is None
    assert extract(docx_with_xml(document.encode("utf-16")), LIMITS).text == "第一条 合同期限为一年。"


def _measured(check: Callable[[bytes, ExtractionLimits], object], data: bytes) -> tuple[float, int, str]:
    """Seconds, peak traced bytes, and the refusal code ("" when accepted) of one check of `data`."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        check(data, LIMITS)
        code = ""
    except ExtractionError as exc:
        code = exc.code
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak, code


@pytest.mark.parametrize("laughs", [30_000, 300_000], ids=["300KB-to-12M-chars", "3MB-to-120M-chars"])
@pytest.mark.parametrize("check", [intake_check, extract], ids=["intake", "worker"])
def test_the_utf16_bomb_is_refused_in_under_a_second_within_50_mb_of_a_one_page_docx(
    check: Callable[[bytes, ExtractionLimits], object], laughs: int
) -> None:
    _, baseline, accepted = _measured(extract, docx_bytes(["第一条 合同期限为一年。"]))
    assert accepted == ""
    elapsed, peak, code = _measured(check, docx_entity_bomb(laughs, "utf-16"))
    assert code == "invalid_docx", f"refused as {code!r}"
    assert elapsed < 1.0, f"{elapsed:.2f} s"
    assert peak - baseline <= 50 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB, one page {baseline / 1e6:.1f} MB"


# Item 6: zip headers patched by hand; what zipfile raises on them besides BadZipFile must not escape.

HOSTILE_HEADERS: dict[str, dict[str, Any]] = {
    # The central directory, read when the archive is opened: UnicodeDecodeError and NotImplementedError.
    "utf8-flag-on-an-invalid-name": {"member": "[Content_Types].xml", "flags": 0x800, "name": b"\xff" * 19},
    "version-above-6.3": {"member": "word/document.xml", "version": 64},
    # A member's own header, read when it is opened: UnicodeDecodeError, NotImplementedError and RuntimeError.
    "local-utf8-flag-on-an-invalid-name": {
        "member": "word/document.xml",
        "flags": 0x800,
        "name": b"word/document.xm\xff",
        "local_only": True,
    },
    "patched-data-flag": {"member": "word/document.xml", "flags": 0x20},
    "unknown-compression-method": {"member": "word/document.xml", "method": 99},
    "encrypted-flag": {"member": "word/document.xml", "flags": 0x1},
}


def hostile_docx(case: str) -> bytes:
    patch = dict(HOSTILE_HEADERS[case])
    return zip_patched(docx_bytes(["第一条 合同期限为一年。"]), patch.pop("member"), **patch)


@pytest.mark.django_db
@pytest.mark.parametrize("case", list(HOSTILE_HEADERS))
def test_a_docx_with_a_hostile_zip_header_is_a_422_with_nothing_stored(send: Any, settings: Any, case: str) -> None:
    assert_refused(send("contract.docx", hostile_docx(case)), "invalid_docx")
    assert_nothing_stored(settings.MEDIA_ROOT)


@pytest.mark.parametrize("case", list(HOSTILE_HEADERS))
def test_the_worker_refuses_a_docx_with_a_hostile_zip_header_as_invalid_docx(case: str) -> None:
    with pytest.raises(ExtractionError) as refused:
        extract(hostile_docx(case), LIMITS)
    assert refused.value.code == "invalid_docx"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "patch",
    [{"member": "content.xml", "flags": 0x800, "name": b"\xff" * 11}, {"member": "content.xml", "version": 64}],
    ids=["utf8-flag-on-an-invalid-name", "version-above-6.3"],
)
def test_an_odt_with_a_hostile_zip_header_is_a_422_with_nothing_stored(
    send: Any, settings: Any, monkeypatch: pytest.MonkeyPatch, patch: dict[str, Any]
) -> None:
    monkeypatch.setattr("contracts.intake.office.converter_require", lambda name, what: None)  # installed or not
    patch = dict(patch)
    odt = zip_patched(odt_bytes(ODT_CONTENT), patch.pop("member"), **patch)
    assert_refused(send("contract.odt", odt), "invalid_office")
    assert_nothing_stored(settings.MEDIA_ROOT)


def _odt_bomb() -> bytes:
    """An .odt whose content.xml (UTF-16) declares an entity and uses it 30,000 times (12 M characters)."""
    xml = (
        '<?xml version="1.0" encoding="UTF-16"?>\n'
        f'<!DOCTYPE office:document-content [\n<!ENTITY a "{"lol" * 133}">\n]>\n'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0">'
        f"{'&a;  ' * 30_000}</office:document-content>"
    )
    return odt_bytes(xml.encode("utf-16"))


@pytest.mark.django_db
def test_an_odt_declaring_entities_is_refused_at_intake_before_libreoffice_sees_it(
    send: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("contracts.intake.office.converter_require", lambda name, what: None)  # installed or not
    assert_refused(send("laughs.odt", _odt_bomb()), "invalid_office")
    assert_nothing_stored(settings.MEDIA_ROOT)


def test_an_odt_whose_manifest_names_the_odf_1_0_dtd_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenOffice 2 wrote a bare DOCTYPE (no entities) into META-INF/manifest.xml: no bomb, so no refusal.
    monkeypatch.setattr("contracts.intake.office.converter_require", lambda name, what: None)
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE manifest:manifest PUBLIC "-//OpenOffice.org//DTD Manifest'
        ' 1.0//EN" "Manifest.dtd"><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:'
        '1.0"/>'
    )
    assert intake_check(odt_bytes(ODT_CONTENT, {"META-INF/manifest.xml": manifest}), LIMITS) is None
