"""Outside converters, for real: OCRmyPDF + Tesseract on scans the test makes, LibreOffice on .doc/.rtf/.odt it
makes from a .docx, the sandbox's timeout on a converter that hangs, and a clear refusal where one is missing.

They need the Debian packages `make test` installs (`make converters`); without them they skip, except with
CI=true, where that is a failure.
"""

from __future__ import annotations

import io
import random
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.extraction import extract, intake_check
from contracts.intake.sandbox import converter_status, run_converter, workspace
from rules.evaluation.dialect import edit_distance
from rules.normalize import normalize
from tests.conftest import IN_CI
from tests.files import SCAN_TEXT, cjk_pdf_bytes, docx_bytes, scanned_page

LIMITS = ExtractionLimits(max_unzipped_bytes=50_000_000, max_pdf_pages=50, max_text_chars=1_000_000)
PARAGRAPHS = ["第一条 保密义务", "乙方对在合作中知悉的甲方商业秘密负有保密义务。", "第二条 合同期限为三年。"]


def _need(name: str) -> None:
    state = converter_status(name)
    if not state.available:
        if IN_CI:
            pytest.fail(f"{name} converter missing with CI=true: {state.detail}", pytrace=False)
        pytest.skip(state.detail)


@pytest.fixture(autouse=True)
def _fresh_status() -> Iterator[None]:
    converter_status.cache_clear()
    yield
    converter_status.cache_clear()


def _image_bytes(image: Image.Image, kind: str, dpi: int = 300) -> bytes:
    out = io.BytesIO()
    image.save(out, format=kind, dpi=(dpi, dpi), resolution=dpi)
    return out.getvalue()


def character_error_rate(expected: str, found: str) -> float:
    """Levenshtein distance over characters, divided by the expected length; both sides normalized as DocGate
    normalizes every text (OpenCC to simplified, one punctuation form), whitespace ignored."""
    a, b = ("".join(normalize(text).text.split()) for text in (expected, found))
    return edit_distance(a, b) / max(len(a), 1)


@pytest.mark.parametrize(("dpi", "kind"), [(300, "PNG"), (200, "TIFF"), (200, "JPEG"), (150, "JPEG")])
def test_a_scanned_page_is_read_within_three_percent_character_error(dpi: int, kind: str) -> None:
    _need("ocr")
    scan = _image_bytes(scanned_page(SCAN_TEXT, dpi=dpi), kind, dpi)
    assert intake_check(scan, LIMITS) is None, "an image is stored for the worker"
    extracted = extract(scan, LIMITS)
    cer = character_error_rate("".join(SCAN_TEXT), extracted.text)
    assert cer <= 0.03, (cer, extracted.text)
    assert not re.search(r"[\u4e00-\u9fff] +[\u4e00-\u9fff]", extracted.text), "no space between Chinese characters"
    assert extracted.ocr is not None
    [page] = extracted.ocr["pages"]
    assert page["ocr"] and page["confidence"] is not None and 50 < page["confidence"] <= 100


def test_in_a_mixed_pdf_only_the_scanned_page_is_ocred() -> None:
    _need("ocr")
    scan = scanned_page(SCAN_TEXT[:4], angle=-0.8)
    scan_pdf = io.BytesIO()
    scan.save(scan_pdf, format="PDF", resolution=300)
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(cjk_pdf_bytes([["第五条 通知", "通知应以书面形式送达。"]]))))
    writer.append(PdfReader(io.BytesIO(scan_pdf.getvalue())))
    mixed = io.BytesIO()
    writer.write(mixed)
    extracted = extract(mixed.getvalue(), LIMITS)
    assert extracted.ocr is not None
    assert [(p["page"], p["ocr"]) for p in extracted.ocr["pages"]] == [(1, False), (2, True)]
    assert "通知应以书面形式送达" in extracted.text, "the text layer is kept as it was"
    assert character_error_rate("".join(SCAN_TEXT[:4]), extracted.text.split("送达。", 1)[1]) <= 0.03


def _libreoffice_converts(docx: bytes, target: str, folder: Path) -> bytes:
    source = folder / "fixture.docx"
    source.write_bytes(docx)
    subprocess.run(
        ["soffice", f"-env:UserInstallation={(folder / 'profile').as_uri()}", "--headless", "--convert-to", target,
         "--outdir", str(folder), str(source)],
        check=True, capture_output=True, timeout=180,
    )  # fmt: skip
    return (folder / f"fixture.{target.split(':')[0]}").read_bytes()


@pytest.mark.parametrize("target", ["doc", "rtf", "odt"])
def test_legacy_office_files_made_by_libreoffice_convert_back_to_the_same_text(target: str, tmp_path: Path) -> None:
    _need("office")
    data = _libreoffice_converts(docx_bytes(PARAGRAPHS), target, tmp_path)
    assert intake_check(data, LIMITS) is None, "stored for the worker"
    extracted = extract(data, LIMITS)
    assert [line for line in extracted.text.splitlines() if line.strip()] == PARAGRAPHS


def test_a_hanging_converter_is_killed_with_its_children(tmp_path: Path) -> None:
    # The child is found by its command line: inside bwrap's PID namespace `$!` is not the host's PID.
    nap = f"{60 + random.random():.6f}"
    with workspace() as folder:
        marker = folder / "child.started"
        started = time.monotonic()
        with pytest.raises(ExtractionError) as refused:
            run_converter(
                ["sh", "-c", f"sleep {nap} & touch {marker}; wait"], folder=folder, timeout_s=1.5, what="test"
            )
        assert refused.value.code == "conversion_timeout"
        assert time.monotonic() - started < 10
        assert marker.exists(), "the child was started"
        time.sleep(0.2)
        assert not _running(["sleep", nap]), "the converter's child was killed with it"


def _running(argv: list[str]) -> bool:
    """Whether a live process (not a zombie, whose command line is empty) runs exactly `argv`."""
    wanted = "\0".join(argv).encode() + b"\0"
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes() == wanted:
                return True
        except OSError:  # the process ended while we looked
            continue
    return False


def test_a_missing_converter_is_refused_at_intake_naming_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing installed here
    converter_status.cache_clear()
    scan = _image_bytes(Image.new("L", (200, 200), 255), "PNG")
    with pytest.raises(ExtractionError) as refused:
        intake_check(scan, LIMITS)
    assert refused.value.code == "converter_missing"
    assert "tesseract-ocr-chi-sim" in refused.value.message
    ole2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)
    with pytest.raises(ExtractionError) as office:
        intake_check(ole2, LIMITS)
    assert office.value.code == "converter_missing" and "libreoffice" in office.value.message
