"""Builders for real upload files (docx, pdf, hostile archives) used by intake tests."""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape

CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    'content-types"><Default Extension="xml" ContentType="application/xml"/>'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'wordprocessingml.document.main+xml"/></Types>'
)
# The package relationship that names word/document.xml as the main document (Word and LibreOffice need it).
PACKAGE_RELS = (
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
    'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def docx_bytes(paragraphs: list[str]) -> bytes:
    """Return a minimal but valid .docx whose body holds the given paragraphs."""
    body = "".join(f"<w:p><w:r><w:t>{escape(p)}</w:t></w:r></w:p>" for p in paragraphs)
    return docx_with_xml(
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body>{body}</w:body></w:document>"
    )


def docx_with_xml(document: str) -> bytes:
    """Return a .docx archive whose word/document.xml is exactly `document`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", PACKAGE_RELS)
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def zip_bomb_docx(expanded_bytes: int = 200 * 1024 * 1024) -> bytes:
    """Return a small .docx-looking zip whose document.xml expands to `expanded_bytes`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            chunk = b" " * (1024 * 1024)
            for _ in range(expanded_bytes // len(chunk)):
                member.write(chunk)
    return buffer.getvalue()


def pdf_bytes(lines: list[str] | None) -> bytes:
    """Return a one-page PDF; with `lines` it has an ASCII text layer, with None it has none (like a scan)."""
    if lines:
        ops = ["BT", "/F1 12 Tf", "72 720 Td"]
        for line in lines:
            safe = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            ops += [f"({safe}) Tj", "0 -16 Td"]
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
    else:
        stream = b"0 0 1 rg 72 72 200 200 re f"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n".encode() + body + b"\nendobj\n")
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode())
    return out.getvalue()


EMBEDDED_CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"  # Debian fonts-wqy-microhei


def cjk_pdf_bytes(pages: list[list[str]], embedded_font: str | None = None) -> bytes:
    """A PDF with a CJK text layer, one list of lines per page. By default reportlab's built-in STSong-Light CID
    font (not embedded: no font file needed); with `embedded_font` (a TrueType/TTC path) a subset of that font is
    embedded with its ToUnicode maps, as word processors write PDFs."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    name = "STSong-Light" if embedded_font is None else "DocGateEmbeddedCJK"
    if name not in pdfmetrics.getRegisteredFontNames():
        font = UnicodeCIDFont(name) if embedded_font is None else TTFont(name, embedded_font, subfontIndex=0)
        pdfmetrics.registerFont(font)
    buffer = io.BytesIO()
    document = canvas.Canvas(buffer, invariant=True)
    for lines in pages:
        document.setFont(name, 11)
        for number, line in enumerate(lines):
            document.drawString(50, 800 - 16 * number, line)
        document.showPage()
    document.save()
    return buffer.getvalue()
