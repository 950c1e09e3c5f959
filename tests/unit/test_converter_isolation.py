"""Converters reach no network and read no host file: hostile Office documents (tests/hostile_documents.py) point
at a secret file, another process's environment, /proc/self/environ and a local HTTP listener, and neither the
secret, nor a read of the secret file, nor a single request may come of converting them.

They run at the isolation this machine gives (`contracts.intake.isolation`: bwrap where user namespaces are
allowed), forced to Landlock alone (what the compose image gets under Docker's default seccomp profile), and with
none at all, where LibreOffice's profile (`contracts.intake.office.libreoffice_profile`) is what holds. Before that
profile and bwrap, LibreOffice 7.4 loaded the .odt's linked object: from the listener (OPTIONS, HEAD, GET) without
isolation, and from the secret's path under `unshare --net` too; and it probed the .doc's linked picture
(OPTIONS, HEAD). No secret reached the text: linked sections and INCLUDETEXT fields kept the text the document
carried.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts.intake import isolation as isolation_module
from contracts.intake.extraction import extract
from contracts.intake.isolation import ISOLATION_LACKS, Isolation, isolation
from contracts.intake.landlock import landlock_abi
from contracts.intake.sandbox import run_converter, workspace
from tests.files import SCAN_TEXT, scanned_page
from tests.hostile_documents import (
    Listener,
    Secret,
    docx_including,
    listener_running,
    odt_linking,
    rtf_including,
    secret_planted,
    targets_of,
)
from tests.unit.test_converters import LIMITS, _image_bytes, _libreoffice_converts, _need, character_error_rate


@pytest.fixture
def listener() -> Iterator[Listener]:
    with listener_running() as found:
        yield found


@pytest.fixture
def secret(tmp_path: Path) -> Iterator[Secret]:
    with secret_planted(tmp_path) as planted:
        yield planted


@pytest.fixture
def hostile(secret: Secret, listener: Listener, tmp_path: Path) -> dict[str, bytes]:
    """The hostile documents by kind; the .doc is LibreOffice's own rendering of the hostile .docx, made before the
    secret exists and with its requests forgotten."""
    targets = targets_of(secret, listener)
    documents = {"rtf": rtf_including(targets), "odt": odt_linking(targets), "docx": docx_including(targets)}
    _need("office")
    build = tmp_path / "build"
    build.mkdir()
    documents["doc"] = _libreoffice_converts(documents["docx"], "doc", build)
    listener.requests.clear()
    secret.write()
    return documents


def _assert_nothing_came_in(text: str, secret: Secret, listener: Listener) -> None:
    assert "Before." in text and "After." in text, f"the document was converted: {text!r}"
    assert secret.token not in text, "the secret reached the text"
    assert listener.requests == [], f"the converter reached the network: {listener.requests}"
    assert not secret.was_read(), "the converter read the secret file"


@pytest.fixture(params=["here", "landlock", "none"])
def level(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Converters run at the isolation this machine gives ("here"), or forced to Landlock alone (as in the compose
    image) or to none; a level that cannot work here is skipped."""
    if request.param == "landlock":
        if not landlock_abi():
            pytest.skip("Landlock is not enabled in this kernel")
        monkeypatch.setattr(isolation_module, "_unshare_prefix", lambda: ())
    if request.param != "here":
        forced = Isolation(request.param, "forced by the test", ISOLATION_LACKS.get(request.param, ()))
        monkeypatch.setattr(isolation_module, "isolation", lambda: forced)
    return str(request.param)


@pytest.mark.parametrize("kind", ["rtf", "odt", "doc"])
def test_office_documents_pull_in_no_local_file_and_reach_no_network(
    kind: str, level: str, hostile: dict[str, bytes], secret: Secret, listener: Listener
) -> None:
    text = extract(hostile[kind], LIMITS).text
    _assert_nothing_came_in(text, secret, listener)


def test_docx_fields_and_external_images_are_never_followed(secret: Secret, listener: Listener) -> None:
    data = docx_including(targets_of(secret, listener))
    secret.write()
    text = extract(data, LIMITS).text
    _assert_nothing_came_in(text, secret, listener)


@pytest.mark.parametrize("confinement", ["bwrap", "landlock"])
def test_a_confined_converter_sees_no_host_file_process_or_network(
    confinement: str, secret: Secret, listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    abi = landlock_abi()
    if confinement == "bwrap" and isolation().level != "bwrap":
        pytest.skip(f"bwrap is not usable here: {isolation().detail}")
    if confinement == "landlock":
        if not abi:
            pytest.skip("Landlock is not enabled in this kernel")
        monkeypatch.setattr(isolation_module, "_unshare_prefix", lambda: ())
        monkeypatch.setattr(isolation_module, "isolation", lambda: Isolation("landlock", "forced by the test", ()))
    secret.write()
    port = int(listener.url.rsplit(":", 1)[1])
    script = (
        f"cat {secret.path} /proc/{secret.worker_pid}/environ {Path(__file__)} /etc/passwd; ls /proc; "
        f'/usr/bin/python3 -c \'import socket; print("connect", socket.socket().connect_ex(("127.0.0.1", {port})))\''
    )
    with workspace() as folder:
        (folder / "input.txt").write_text("the input")
        done = run_converter(["sh", "-c", f"{script}; cat input.txt"], folder=folder, timeout_s=60, what="probe")
    assert "the input" in done.stdout, "the work folder is there"
    assert secret.token not in done.stdout, "no file of the host's /tmp, no other process's environment"
    assert "Converters reach no network" not in done.stdout and "root:" not in done.stdout, "no source, no /etc"
    assert str(secret.worker_pid) not in done.stdout.split(), "host processes are not listed"
    connected = re.search(r"^connect (\d+)$", done.stdout, re.M)
    assert connected, done.stderr
    if confinement == "bwrap" or abi >= 4:
        assert connected.group(1) != "0" and listener.requests == [], "no TCP to the worker's 127.0.0.1"


def test_ocr_reads_a_scan_under_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    _need("ocr")
    if not landlock_abi():
        pytest.skip("Landlock is not enabled in this kernel")
    monkeypatch.setattr(isolation_module, "_unshare_prefix", lambda: ())
    monkeypatch.setattr(isolation_module, "isolation", lambda: Isolation("landlock", "forced by the test", ()))
    scan = _image_bytes(scanned_page(SCAN_TEXT[:8], dpi=200), "PNG", 200)
    extracted = extract(scan, LIMITS)
    assert character_error_rate("".join(SCAN_TEXT[:8]), extracted.text) <= 0.03, extracted.text
