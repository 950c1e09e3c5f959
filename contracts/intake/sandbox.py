"""Running an outside converter (LibreOffice, OCRmyPDF) on an upload: its own temporary directory and profile, its
whole process group killed however it ends (timeout, exception, normal exit), confined as tightly as this machine
allows (`contracts.intake.isolation`: bubblewrap, else Landlock, else a network namespace), bounded output.

Converters are programs installed from Debian packages (`make install-converters`); a missing one is a refusal
naming the package to install, and `/readyz` lists it (`converter_status`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext as _

from contracts.intake.errors import ExtractionError
from contracts.intake.isolation import isolation_argv

# What each converter needs, and the Debian packages that provide it.
CONVERTERS: dict[str, tuple[tuple[str, ...], str]] = {
    "ocr": (("ocrmypdf", "tesseract"), "ocrmypdf tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-chi-tra"),
    "office": (("soffice",), "libreoffice-writer-nogui"),
}
OCR_LANGUAGES = ("chi_sim", "chi_tra")


class ConverterMissing(ExtractionError):
    """The converter an input type needs is not installed on this machine."""


@dataclass(frozen=True)
class ConverterState:
    """Whether a converter is usable here, and what to install when it is not."""

    available: bool
    detail: str


def _tesseract_languages() -> set[str]:
    try:
        listed = subprocess.run(
            ["tesseract", "--list-langs"], capture_output=True, text=True, timeout=20, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {line.strip() for line in listed.splitlines()[1:] if line.strip()}


@functools.cache
def converter_status(name: str) -> ConverterState:
    """Whether converter `name` (ocr, office) can run here; checked once per process."""
    programs, packages = CONVERTERS[name]
    missing = [program for program in programs if shutil.which(program) is None]
    if name == "ocr" and not missing:
        missing += [f"tesseract language {lang}" for lang in OCR_LANGUAGES if lang not in _tesseract_languages()]
    if missing:
        return ConverterState(False, f"missing {', '.join(missing)}: apt-get install {packages}")
    return ConverterState(True, "ok")


def converter_require(name: str, what: str) -> None:
    """Refuse with a clear message when the converter for `what` is not installed."""
    state = converter_status(name)
    if not state.available:
        raise ConverterMissing(
            "converter_missing",
            _("%(what)s cannot be read on this server (%(detail)s). Send a text PDF, .docx or .txt.")
            % {"what": what, "detail": state.detail},
        )


@contextmanager
def workspace() -> Iterator[Path]:
    """A private temporary directory, removed afterwards whatever happened inside."""
    folder = Path(tempfile.mkdtemp(prefix="docgate-convert-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_converter(
    argv: Sequence[str], *, folder: Path, timeout_s: float, what: str
) -> subprocess.CompletedProcess[str]:
    """Run a converter in its own session inside `folder` (HOME and TMPDIR too), without network where possible;
    past `timeout_s` the upload is refused as `conversion_timeout`. Its whole process group is killed on the way
    out, whatever the way."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(folder),
        "TMPDIR": str(folder),
        "LANG": "C.UTF-8",
        "OMP_THREAD_LIMIT": "1",  # Tesseract: one thread per page; the worker pool is the parallelism
    }
    process = subprocess.Popen(
        [*isolation_argv(folder), *argv],
        cwd=folder,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise ExtractionError(
            "conversion_timeout",
            _("Converting the %(what)s took longer than %(seconds).0f s and was stopped.")
            % {"what": _(what), "seconds": timeout_s},
        ) from None
    finally:
        # However the wait ended (the converter's exit, the timeout, an exception in this worker: a soft time limit,
        # KeyboardInterrupt, SystemExit), nothing the converter started may outlive it.
        _group_end(process)
    return subprocess.CompletedProcess(list(argv), process.returncode, stdout, stderr)


def _group_end(process: subprocess.Popen[str]) -> None:
    """Kill the converter's process group, children included even once the converter itself has exited (the group
    keeps its id while any member lives), then reap the converter and close its pipes."""
    # ProcessLookupError: the group is empty, nothing left to kill; PermissionError: a group by that id is not ours.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()
