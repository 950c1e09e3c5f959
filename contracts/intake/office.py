"""Legacy and open Office documents (.doc, .wps, .rtf, .odt): recognised by content, converted to text by
LibreOffice headless in the worker (`contracts.intake.sandbox`: own profile, timeout, no network, bounded output)."""

from __future__ import annotations

from contracts.intake.archives import archive_open, xml_prolog_check
from contracts.intake.errors import ExtractionError, ExtractionLimits
from contracts.intake.sandbox import converter_require, run_converter, workspace

OLE2 = "application/x-ole-storage"  # .doc and Kingsoft .wps (and other OLE2 files, which LibreOffice refuses)
RTF = "application/rtf"
ODT = "application/vnd.oasis.opendocument.text"
OFFICE_TYPES = {OLE2: ".doc", RTF: ".rtf", ODT: ".odt"}
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ODT_MIMETYPE = b"mimetype" + ODT.encode()


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
    converter_require("office", "A legacy Office document (.doc, .wps, .rtf, .odt)")
    if content_type != ODT:
        return
    with archive_open(data, code="invalid_office", message="The .odt document is not a valid archive.") as archive:
        infos = archive.infolist()
        if sum(info.file_size for info in infos) > limits.max_unzipped_bytes:
            raise ExtractionError("archive_too_large", "The .odt expands beyond the allowed size.")
        for info in infos:
            if info.filename.lower().endswith(".xml"):
                # A bare DOCTYPE is kept: OpenOffice 2 wrote one, naming the ODF 1.0 DTD, into its manifest.
                xml_prolog_check(archive, info.filename, code="invalid_office", what=".odt", forbid_dtd=False)


def office_text(data: bytes, content_type: str, limits: ExtractionLimits) -> str:
    """Convert the document to UTF-8 text with LibreOffice; refuse what it cannot read or what is too long."""
    converter_require("office", "A legacy Office document (.doc, .wps, .rtf, .odt)")
    with workspace() as folder:
        source = folder / f"input{OFFICE_TYPES[content_type]}"
        source.write_bytes(data)
        out = folder / "out"
        argv = [
            "soffice",
            f"-env:UserInstallation={(folder / 'profile').as_uri()}",
            "--headless",
            "--invisible",
            "--nologo",
            "--nodefault",
            "--norestore",
            "--nolockcheck",
            "--convert-to",
            "txt:Text (encoded):UTF8",
            "--outdir",
            str(out),
            str(source),
        ]
        run_converter(argv, folder=folder, timeout_s=limits.conversion_timeout_s, what="Office document")
        converted = out / "input.txt"
        if not converted.exists():
            raise ExtractionError("invalid_office", "LibreOffice could not read the document.")
        if converted.stat().st_size > 4 * limits.max_text_chars:
            raise ExtractionError("text_too_long", "The document holds more text than DocGate accepts.")
        return converted.read_text(encoding="utf-8-sig", errors="replace").replace("\r\n", "\n")
