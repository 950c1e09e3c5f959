"""Legacy and open Office documents (.doc, .wps, .rtf, .odt): recognised by content, converted to text by
LibreOffice headless in the worker (`contracts.intake.sandbox`: own profile, timeout, confined, bounded output).

The profile is written fresh for each conversion and refuses what a document may ask LibreOffice to fetch:
links are never updated, links from untrusted documents (every upload) are blocked, macros never run, and every
URL goes through a proxy that cannot exist, so even where the converter has the network and the worker's files
(isolation `none`) the linked objects and pictures of tests/unit/test_converter_isolation.py reach nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from xml.sax.saxutils import escape

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from contracts.intake.archives import archive_members, archive_open, xml_prolog_check
from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.sandbox import ConverterMissing, converter_require, converter_status, run_converter, workspace

OLE2 = "application/x-ole-storage"  # .doc and Kingsoft .wps (and other OLE2 files, which LibreOffice refuses)
RTF = "application/rtf"
ODT = "application/vnd.oasis.opendocument.text"
OFFICE_TYPES = {OLE2: ".doc", RTF: ".rtf", ODT: ".odt"}
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ODT_MIMETYPE = b"mimetype" + ODT.encode()
_NO_PROXY = "docgate-no-network.invalid"  # RFC 6761: .invalid never resolves
# (configuration path, property, type, value) written to the profile's registrymodifications.xcu.
_PROFILE_SETTINGS = (
    ("/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "boolean", "true"),
    ("/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "int", "3"),
    ("/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "boolean", "true"),
    ("/org.openoffice.Office.Writer/Content/Update", "Link", "int", "0"),  # 0: never update links
    ("/org.openoffice.Office.Java/VirtualMachine", "Enable", "boolean", "false"),
    ("/org.openoffice.Inet/Settings", "ooInetProxyType", "int", "1"),  # 1: the proxies named here
    ("/org.openoffice.Inet/Settings", "ooInetNoProxy", "string", ""),
    *(
        ("/org.openoffice.Inet/Settings", f"ooInet{scheme}Proxy{field}", kind, value)
        for scheme in ("HTTP", "HTTPS", "FTP")
        for field, kind, value in (("Name", "string", _NO_PROXY), ("Port", "int", "9"))
    ),
)


def sniff_office(data: bytes) -> str | None:
    """The Office type of `data` from its leading bytes, or None."""
    if data.startswith(_OLE2_MAGIC):
        return OLE2
    if data.lstrip()[:5] == b"{\\rtf":
        return RTF
    if data.startswith(b"PK\x03\x04") and _ODT_MIMETYPE in data[:200]:
        return ODT
    return None


def office_check(data: bytes, content_type: str, limits: ExtractionLimits) -> None:
    """The intake check: the converter is installed, and an .odt is a zip that does not expand too far and whose
    XML declares no entities (LibreOffice would expand them)."""
    converter_require("office", _("A legacy Office document (.doc, .wps, .rtf, .odt)"))
    if content_type != ODT:
        return
    with archive_open(data, code="invalid_office", message=_("The .odt document is not a valid archive.")) as archive:
        for info in archive_members(archive, limit=limits.max_unzipped_bytes, what=".odt"):
            if info.filename.lower().endswith(".xml"):
                # A bare DOCTYPE is kept: OpenOffice 2 wrote one, naming the ODF 1.0 DTD, into its manifest.
                xml_prolog_check(archive, info.filename, code="invalid_office", what=".odt", forbid_dtd=False)


def libreoffice_profile(folder: Path) -> Path:
    """Write a fresh LibreOffice user profile under `folder` with the settings above; return its directory."""
    profile = folder / "profile"
    (profile / "user").mkdir(parents=True)
    items = "".join(
        f'<item oor:path="{path}"><prop oor:name="{name}" oor:op="fuse" oor:type="xs:{kind}">'
        f"<value>{escape(value)}</value></prop></item>"
        for path, name, kind, value in _PROFILE_SETTINGS
    )
    (profile / "user" / "registrymodifications.xcu").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><oor:items xmlns:oor="http://openoffice.org/2001/registry" '
        'xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        f"{items}</oor:items>",
        encoding="utf-8",
    )
    return profile


def _soffice_argv(folder: Path, convert_to: str, source: Path) -> list[str]:
    """The LibreOffice command that converts `source` into `folder`/out, with a fresh confined profile."""
    return [
        "soffice",
        f"-env:UserInstallation={libreoffice_profile(folder).as_uri()}",
        "--headless",
        "--invisible",
        "--nologo",
        "--nodefault",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        convert_to,
        "--outdir",
        str(folder / "out"),
        str(source),
    ]


def office_text(data: bytes, content_type: str, limits: ExtractionLimits) -> str:
    """Convert the document to UTF-8 text with LibreOffice; refuse what it cannot read or what is too long."""
    converter_require("office", _("A legacy Office document (.doc, .wps, .rtf, .odt)"))
    with workspace() as folder:
        source = folder / f"input{OFFICE_TYPES[content_type]}"
        source.write_bytes(data)
        argv = _soffice_argv(folder, "txt:Text (encoded):UTF8", source)
        run_converter(argv, folder=folder, timeout_s=limits.conversion_timeout_s, what=gettext_noop("Office document"))
        converted = folder / "out" / "input.txt"
        if not converted.exists():
            raise ExtractionError("invalid_office", _("LibreOffice could not read the document."))
        if converted.stat().st_size > 4 * limits.max_text_chars:
            raise ExtractionError("text_too_long", _("The document holds more text than DocGate accepts."))
        return converted.read_text(encoding="utf-8-sig", errors="replace").replace("\r\n", "\n")


def office_pdf(docx_data: bytes, *, timeout_s: float, comments: bool = False) -> bytes:
    """Convert a .docx that DocGate wrote to PDF with LibreOffice (the same confined door as uploads). With
    `comments`, its Word comments go into the PDF: in the margin where LibreOffice can print them there
    (ExportNotesInMargin; LibreOffice 7.4 has no such option and ignores it), and as PDF text annotations."""
    state = converter_status("office")
    if not state.available:
        raise ConverterMissing(
            "converter_missing",
            _("A PDF cannot be made on this server (%(detail)s); the .docx report can.") % {"detail": state.detail},
        )
    options = {"ExportNotes": comments, "ExportNotesInMargin": comments}
    filter_data = json.dumps({name: {"type": "boolean", "value": str(v).lower()} for name, v in options.items()})
    with workspace() as folder:
        source = folder / "report.docx"
        source.write_bytes(docx_data)
        argv = _soffice_argv(folder, f"pdf:writer_pdf_Export:{filter_data}", source)
        run_converter(argv, folder=folder, timeout_s=timeout_s, what=gettext_noop("report"))
        converted = folder / "out" / "report.pdf"
        if not converted.exists():
            raise ExtractionError("conversion_failed", _("LibreOffice could not convert the report to PDF."))
        return converted.read_bytes()
