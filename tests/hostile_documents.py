"""Office documents that try to pull outside content into their text: linked sections, INCLUDETEXT fields,
external images and linked objects pointing at local files, /proc and a local HTTP listener; and what they point
at: a secret file whose reads show, a process whose environment holds the secret, a listener that counts requests.

Each builder takes the targets to reference and returns the file's bytes; tests/unit/test_converter_isolation.py
and tests/api/test_hostile_inputs.py convert them and look for what came back.
"""

from __future__ import annotations

import http.server
import io
import os
import secrets
import subprocess
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

from tests.files import CONTENT_TYPES, PACKAGE_RELS

ODT = "application/vnd.oasis.opendocument.text"
_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
    'xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" '
    'xmlns:xlink="http://www.w3.org/1999/xlink"'
)
_LINK = 'xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"'


@dataclass
class Listener:
    """A local HTTP server that answers anything with a token and remembers every request."""

    url: str
    requests: list[tuple[str, str]] = field(default_factory=list)


@contextmanager
def listener_running() -> Iterator[Listener]:
    """A Listener on 127.0.0.1 (a free port) for the duration of the block."""
    found = Listener(url="")
    token = secrets.token_hex(8)

    class Handler(http.server.BaseHTTPRequestHandler):
        def answer(self) -> None:
            found.requests.append((self.command, self.path))
            self.send_response(200)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(f"fetched {token}".encode())

        do_GET = do_HEAD = do_OPTIONS = do_PROPFIND = do_POST = answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    found.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()


@dataclass(frozen=True)
class Secret:
    """A random token, in a file and in the environment of a running process (as the worker's holds its settings)."""

    token: str
    path: Path
    worker_pid: int

    def write(self) -> None:
        """Put the token in the file and set its access time to 0, so that any read of it shows."""
        self.path.write_text(f"SECRET {self.token}\n")
        os.utime(self.path, (0, self.path.stat().st_mtime))

    def was_read(self) -> bool:
        """Whether the file was read since `write` (False where reads do not update access times: noatime)."""
        probe = self.path.with_name("atime-probe")
        probe.write_text("probe")
        os.utime(probe, (0, probe.stat().st_mtime))
        probe.read_text()
        return probe.stat().st_atime != 0 and self.path.stat().st_atime != 0


@contextmanager
def secret_planted(folder: Path) -> Iterator[Secret]:
    """A Secret whose file (not written yet: `Secret.write`) is in `folder`, and whose process runs for the block."""
    token = secrets.token_hex(16)
    worker = subprocess.Popen(["sleep", "300"], env={"DOCGATE_WORKER_SECRET": token})
    try:
        yield Secret(token, folder / "secret.txt", worker.pid)
    finally:
        worker.kill()
        worker.wait()


@dataclass(frozen=True)
class Targets:
    """What a hostile document points at: local files (paths) and URLs of the test's HTTP listener."""

    files: tuple[str, ...]
    url: str  # base URL of the listener, without a trailing slash

    def urls(self, name: str) -> str:
        return f"{self.url}/{name}"


def targets_of(secret: Secret, listener: Listener) -> Targets:
    """The secret's file, its process's environment, the converter's own environment, and the listener."""
    files = (str(secret.path), f"/proc/{secret.worker_pid}/environ", "/proc/self/environ")
    return Targets(files=files, url=listener.url)


def rtf_including(targets: Targets) -> bytes:
    """An .rtf whose INCLUDETEXT fields name each file and a URL, with an INCLUDEPICTURE of a URL."""

    def field(instruction: str) -> str:
        quoted = instruction.replace("\\", "\\\\")
        return f"\\pard {{\\field{{\\*\\fldinst {quoted}}}{{\\fldrslt shown}}}}\\par\n"

    fields = [f'INCLUDETEXT "{path}"' for path in targets.files]
    fields += [f'INCLUDETEXT "{targets.urls("rtf-include.txt")}"', f'INCLUDEPICTURE "{targets.urls("rtf.png")}" \\d']
    body = "".join(field(instruction) for instruction in fields)
    head = "{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\n\\pard Before.\\par\n"
    return f"{head}{body}\\pard After.\\par}}".encode()


def odt_linking(targets: Targets) -> bytes:
    """An .odt with a linked section, an image and a linked object per file and URL, and settings that ask for
    links to be updated on load."""
    files = [f"file://{path}" for path in targets.files]
    sections = "".join(
        f'<text:section text:name="S{number}"><text:section-source xlink:href={quoteattr(href)} '
        'xlink:type="simple"/><text:p>shown</text:p></text:section>'
        for number, href in enumerate([*files, targets.urls("odt-section.txt")])
    )
    # A linked object is the one LibreOffice 7.4 loads on its own: over HTTP, or a local file, unless told not to.
    frames = "".join(
        f'<text:p><draw:frame draw:name="{kind}{number}" svg:width="1cm" svg:height="1cm"><draw:{kind} '
        f"xlink:href={quoteattr(href)} {_LINK}/></draw:frame></text:p>"
        for kind in ("image", "object")
        for number, href in enumerate([targets.urls(f"odt-{kind}"), *files])
    )
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {_ODF_NS} office:version="1.2">'
        f"<office:body><office:text><text:p>Before.</text:p>{sections}{frames}<text:p>After.</text:p>"
        "</office:text></office:body></office:document-content>"
    )
    settings = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-settings {_ODF_NS} office:version="1.2">'
        '<office:settings><config:config-item-set config:name="ooo:configuration-settings">'
        '<config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item>'
        '<config:config-item config:name="FieldAutoUpdate" config:type="boolean">true</config:config-item>'
        "</config:config-item-set></office:settings></office:document-settings>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:'
        f'opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" '
        f'manifest:media-type="{ODT}"/><manifest:file-entry manifest:full-path="content.xml" '
        'manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="settings.xml" '
        'manifest:media-type="text/xml"/></manifest:manifest>'
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), ODT)  # first and stored, as ODF requires
        for name, text in (("content.xml", content), ("settings.xml", settings), ("META-INF/manifest.xml", manifest)):
            archive.writestr(name, text, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


_DOCX_IMAGE = (
    '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="100000" cy="100000"/><wp:docPr id="1" name="P1"/><a:graphic>'
    '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr>'
    '<pic:cNvPr id="1" name="P1"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:link="rIdImage"/>'
    '</pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="100000" cy="100000"/></a:xfrm>'
    '<a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
)


def docx_including(targets: Targets) -> bytes:
    """A .docx with INCLUDETEXT fields (complex and simple) naming each file and a URL, an INCLUDEPICTURE of a
    URL and an image whose relationship is external (TargetMode="External")."""

    def complex_field(instruction: str) -> str:
        return (
            '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> '
            f'{instruction} </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>shown</w:t>'
            '</w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>'
        )

    fields = "".join(complex_field(f"INCLUDETEXT &quot;{path}&quot;") for path in targets.files)
    fields += complex_field(f"INCLUDEPICTURE &quot;{targets.urls('docx-field.png')}&quot; \\d")
    simple = quoteattr(f' INCLUDETEXT "{targets.urls("docx-include.txt")}" ')
    fields += f"<w:p><w:fldSimple w:instr={simple}><w:r><w:t>shown</w:t></w:r></w:fldSimple></w:p>"
    document = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document '
        'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>'
        f"<w:p><w:r><w:t>Before.</w:t></w:r></w:p>{fields}{_DOCX_IMAGE}<w:p><w:r><w:t>After.</w:t></w:r></w:p>"
        "</w:body></w:document>"
    )
    relationships = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
        'relationships"><Relationship Id="rIdImage" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        f'relationships/image" Target={quoteattr(targets.urls("docx.png"))} TargetMode="External"/></Relationships>'
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", CONTENT_TYPES)
        archive.writestr("_rels/.rels", PACKAGE_RELS)
        archive.writestr("word/document.xml", document)
        archive.writestr("word/_rels/document.xml.rels", relationships)
    return buffer.getvalue()
