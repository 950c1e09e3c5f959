"""Zip archives and the XML inside them (.docx, .odt), read as hostile input: whatever the zip library raises on
crafted bytes becomes an ExtractionError, and XML is parsed by a parser that refuses DTDs, whatever its encoding."""

from __future__ import annotations

import io
import lzma
import zipfile
import zlib
from typing import IO
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring, iterparse
from django.utils.translation import gettext as _

from contracts.intake.errors import ExtractionError

# What zipfile raises on crafted archives beyond BadZipFile: NotImplementedError (a version above 6.3, an unknown
# method, patched or strongly encrypted data) and RuntimeError (an encrypted member); UnicodeDecodeError, a
# ValueError (a name flagged UTF-8 that is not); zlib.error, LZMAError, OSError or EOFError (a corrupt stream).
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,
    ValueError,
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
)
_CHUNK = 65536
_PROLOG_READ = 1024  # a prolog (declaration, DTD if any) is read to its root element in pieces this large


def archive_open(data: bytes, *, code: str, message: str) -> zipfile.ZipFile:
    """Open `data` as a zip archive (its central directory read and checked); raise ExtractionError(code)."""
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except ZIP_ERRORS as exc:
        raise ExtractionError(code, message) from exc


def archive_members(archive: zipfile.ZipFile, *, limit: int, what: str) -> list[zipfile.ZipInfo]:
    """The archive's members, refused as `archive_too_large` when their declared sizes add up past `limit`."""
    members = archive.infolist()
    if sum(info.file_size for info in members) > limit:
        raise _too_large(what)
    return members


def _too_large(what: str) -> ExtractionError:
    return ExtractionError("archive_too_large", _("The %(what)s expands beyond the allowed size.") % {"what": _(what)})


def _damaged(code: str, what: str) -> ExtractionError:
    return ExtractionError(code, _("The %(what)s's zip archive is damaged.") % {"what": _(what)})


def _member_open(archive: zipfile.ZipFile, name: str, code: str, what: str) -> IO[bytes]:
    try:
        return archive.open(name)
    except ZIP_ERRORS as exc:
        raise _damaged(code, what) from exc


def archive_member_read(archive: zipfile.ZipFile, name: str, *, limit: int, code: str, what: str) -> bytes:
    """One member's bytes, refused as `archive_too_large` once past `limit` (declared sizes can lie) and as `code`
    when the archive is damaged."""
    out = io.BytesIO()
    with _member_open(archive, name, code, what) as member:
        try:
            while chunk := member.read(_CHUNK):
                out.write(chunk)
                if out.tell() > limit:
                    raise _too_large(what)
        except ZIP_ERRORS as exc:
            raise _damaged(code, what) from exc
    return out.getvalue()


def _dtd_refusal(code: str, what: str) -> ExtractionError:
    return ExtractionError(
        code, _("The %(what)s declares a DTD (where entities are declared), which DocGate refuses.") % {"what": _(what)}
    )


def xml_parsed(xml: bytes, *, code: str, what: str) -> Element:
    """Parse XML in whatever encoding it declares, refusing a DTD before anything in it is expanded; raise
    ExtractionError(code) for a DTD or malformed XML."""
    try:
        return fromstring(xml, forbid_dtd=True)
    except DefusedXmlException as exc:
        raise _dtd_refusal(code, what) from exc
    except ParseError as exc:
        raise ExtractionError(code, _("The %(what)s's XML is malformed.") % {"what": _(what)}) from exc


class _SmallReads:
    """A member read a little at a time: iterparse parses whole 16 KiB reads into elements before it yields the first
    one, where the prolog check needs only what comes before the root element."""

    def __init__(self, member: IO[bytes]) -> None:
        self.member = member

    def read(self, size: int = -1) -> bytes:
        return self.member.read(_PROLOG_READ if size < 0 else min(size, _PROLOG_READ))


def xml_prolog_check(archive: zipfile.ZipFile, name: str, *, code: str, what: str, forbid_dtd: bool = True) -> None:
    """Intake's cheap check of one XML member: parse it only as far as its root element (a DTD comes before it)
    and refuse a DTD (with `forbid_dtd` False, only one that declares entities) or a malformed prolog as `code`."""
    with _member_open(archive, name, code, what) as member:
        try:
            reads = _SmallReads(member)
            for _event, _root in iterparse(reads, events=("start",), forbid_dtd=forbid_dtd, forbid_entities=True):
                return
        except DefusedXmlException as exc:
            raise _dtd_refusal(code, what) from exc
        except ParseError as exc:
            raise ExtractionError(code, _("The %(what)s's XML is malformed.") % {"what": _(what)}) from exc
        except ZIP_ERRORS as exc:
            raise _damaged(code, what) from exc
