"""Builders for real upload files (docx, pdf, hostile archives) used by intake tests."""

from __future__ import annotations

import io
import random
import struct
import zipfile
from pathlib import Path
from typing import cast
from xml.sax.saxutils import escape

from PIL import Image, ImageDraw, ImageFilter, ImageFont

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


def docx_with_xml(document: str | bytes) -> bytes:
    """Return a .docx archive whose word/document.xml is exactly `document` (a str is written as UTF-8)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", PACKAGE_RELS)
        archive.writestr("word/document.xml", document)
    return buffer.getvalue()


def docx_entity_bomb(laughs: int = 30_000, encoding: str = "utf-16") -> bytes:
    """A .docx whose word/document.xml, in `encoding`, declares a 399-character entity in a DTD and uses it `laughs`
    times: 30,000 make a 300 KB part (UTF-16) that expands to 12 M characters. Each use stands among a little plain
    text, which keeps the growth (40x) under expat's own amplification limit (100x): only refusing DTDs stops it."""
    declared = "UTF-16" if encoding.startswith("utf-16") else encoding.upper()
    xml = (
        f'<?xml version="1.0" encoding="{declared}"?>\n'
        f'<!DOCTYPE w:document [\n<!ENTITY a "{"lol" * 133}">\n]>\n'
        '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f"<w:body><w:p><w:r><w:t>{'&a;  ' * laughs}</w:t></w:r></w:p></w:body></w:document>"
    )
    return docx_with_xml(xml.encode(encoding))


def zip_patched(
    data: bytes,
    member: str,
    *,
    flags: int = 0,
    version: int | None = None,
    method: int | None = None,
    name: bytes | None = None,
    local_only: bool = False,
) -> bytes:
    """`data` (a zip) with one member's headers patched by hand, as a hostile client would: `flags` or-ed into its
    general-purpose bits, its version needed to extract or compression method set, its name's bytes replaced
    (same length); in the central directory and the local header, or with `local_only` in the local header only."""
    out = bytearray(data)
    wanted = member.encode()
    assert name is None or len(name) == len(wanted)
    # Field offsets (version, flags, method, name length, name) in a local header and a central directory entry.
    layouts = {b"PK\x03\x04": (4, 6, 8, 26, 30), b"PK\x01\x02": (6, 8, 10, 28, 46)}
    found = 0
    for signature, (at_version, at_flags, at_method, at_length, at_name) in layouts.items():
        if local_only and signature == b"PK\x01\x02":
            continue
        start = out.find(signature)
        while start != -1:
            (length,) = struct.unpack_from("<H", out, start + at_length)
            if bytes(out[start + at_name : start + at_name + length]) == wanted:
                found += 1
                (old_flags,) = struct.unpack_from("<H", out, start + at_flags)
                struct.pack_into("<H", out, start + at_flags, old_flags | flags)
                if version is not None:
                    struct.pack_into("<H", out, start + at_version, version)
                if method is not None:
                    struct.pack_into("<H", out, start + at_method, method)
                if name is not None:
                    out[start + at_name : start + at_name + length] = name
            start = out.find(signature, start + 4)
    assert found == (1 if local_only else 2), f"{member} found {found} times"
    return bytes(out)


def odt_bytes(content_xml: str | bytes, others: dict[str, str] | None = None) -> bytes:
    """A minimal .odt: the stored `mimetype` first (how it is recognised), then content.xml and any `others`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text", compress_type=zipfile.ZIP_STORED)
        archive.writestr("content.xml", content_xml)
        for name, xml in (others or {}).items():
            archive.writestr(name, xml)
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
    placed = [[(50.0, 800.0 - 16 * number, line) for number, line in enumerate(lines)] for lines in pages]
    return cjk_pdf_placed(placed, embedded_font)


def cjk_pdf_placed(pages: list[list[tuple[float, float, str]]], embedded_font: str | None = None) -> bytes:
    """A CJK PDF (fonts as `cjk_pdf_bytes`) whose pages draw each (x, y, text) in the order given: the content
    stream's order, which need not be the order a reader sees."""
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
    for drawn in pages:
        document.setFont(name, 11)
        for x, y, text in drawn:
            document.drawString(x, y, text)
        document.showPage()
    document.save()
    return buffer.getvalue()


# A full page of a lease (441 characters): a CER measured on a few lines moves by a third of a point per error.
SCAN_TEXT = [
    "房屋租赁合同",
    "出租方（甲方）：王建国  承租方（乙方）：李晓梅",
    "第一条 租赁期限",
    "租赁期限自2024年1月1日起至2026年12月31日止。",
    "第二条 租金及支付方式",
    "乙方应于每月5日前向甲方支付当月租金人民币伍仟元整。",
    "租金以银行转账方式支付，甲方收款后应出具收据。",
    "第三条 押金",
    "乙方于签订本合同时向甲方交纳押金一万元，租期届满",
    "乙方结清水电费用并交还房屋后，甲方应无息退还押金。",
    "第四条 房屋维修",
    "房屋及附属设施因自然损耗需要维修的，由甲方负责；",
    "因乙方使用不当造成损坏的，由乙方负责修复或赔偿。",
    "第五条 违约责任",
    "乙方逾期支付租金的，每逾期一日，应按月租金的百分之一",
    "支付违约金；逾期超过三十日的，甲方有权解除本合同。",
    "第六条 合同的解除",
    "任何一方提前解除合同的，应提前三十日书面通知对方。",
    "第七条 不可抗力",
    "因地震、火灾等不可抗力致使合同无法履行的，双方互不",
    "承担违约责任，但应及时通知对方并提供证明。",
    "第八条 争议解决",
    "因本合同引起的争议，双方协商不成的，向房屋所在地人民",
    "法院起诉。本合同一式两份，甲乙双方各执一份。",
]


def scanned_page(lines: list[str], *, dpi: int = 300, angle: float = 1.2, seed: int = 7) -> Image.Image:
    """An A4 page of CJK text (12 pt) as a scanner gives it: rasterised at `dpi`, slightly rotated, with dust
    specks (0.1 % of the pixels flipped) and a little blur."""
    if not Path(EMBEDDED_CJK_FONT).exists():
        raise FileNotFoundError(f"the test font {EMBEDDED_CJK_FONT} is missing (fonts-wqy-microhei)")
    width, height = int(8.27 * dpi), int(11.69 * dpi)
    page = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(page)
    font = ImageFont.truetype(EMBEDDED_CJK_FONT, size=int(dpi * 12 / 72))
    for number, line in enumerate(lines):
        draw.text((int(dpi * 0.9), int(dpi * 1.0) + number * int(dpi * 0.35)), line, font=font, fill=0)
    page = page.rotate(angle, resample=Image.Resampling.BICUBIC, fillcolor=255)
    noise = random.Random(seed)
    pixels = page.load()
    assert pixels is not None
    for _ in range(width * height // 1000):
        x, y = noise.randrange(width), noise.randrange(height)
        pixels[x, y] = 0 if cast(int, pixels[x, y]) > 127 else 255  # a grey ("L") image: one int per pixel
    return page.filter(ImageFilter.GaussianBlur(0.3))


def scanned_pdf_bytes(lines: list[str], *, dpi: int = 300, seed: int = 7) -> bytes:
    """A one-page PDF holding only the image of `scanned_page(lines)`, as a scanner writes it (no text layer)."""
    out = io.BytesIO()
    scanned_page(lines, dpi=dpi, seed=seed).save(out, format="PDF", resolution=dpi)
    return out.getvalue()
