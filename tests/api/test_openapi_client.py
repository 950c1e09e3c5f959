"""The OpenAPI schema is one that generated clients understand: it builds without warnings, declares the API key,
and a Python client generated from the live schema submits, polls and reads results against a running DocGate."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from tests.workers import ROOT, celery_worker, wait_until

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "docgate_client"


def test_schema_builds_without_warnings_and_declares_the_api_key(tmp_path: Path) -> None:
    out = tmp_path / "schema.yaml"
    done = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--fail-on-warn", "--validate", "--file", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Warning" not in done.stderr, done.stderr[-3000:]
    schema = yaml.safe_load(out.read_text())
    assert schema["components"]["securitySchemes"]["ApiKeyAuth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": schema["components"]["securitySchemes"]["ApiKeyAuth"]["description"],
    }
    submit = schema["paths"]["/api/v1/documents/"]["post"]
    assert {"ApiKeyAuth": []} in submit["security"]
    # JSON text and a multipart file are two request types, so that a client can tell which one it sends.
    bodies = submit["requestBody"]["content"]
    assert bodies["application/json"]["schema"]["$ref"].endswith("/SubmitTextRequest")
    assert bodies["multipart/form-data"]["schema"]["$ref"].endswith("/SubmitFileRequest")
    # A filter names the same enum as the field it filters on.
    status = next(p for p in schema["paths"]["/api/v1/documents/"]["get"]["parameters"] if p["name"] == "status")
    assert status["schema"] == {"$ref": "#/components/schemas/JobStateEnum"}


def _generate(schema_url: str, folder: Path) -> Path:
    """Generate DocGate's Python client from the schema at `schema_url` into `folder`; return the package's root."""
    config = folder / "config.yaml"
    # No post hooks: the generated code is imported as it is, without running a formatter over it.
    # The report (.docx / .pdf) and the examples export (JSON lines) are files to the client: the generator reads
    # vendor types only through its content_type_overrides, as any consumer of DocGate's schema would configure it.
    overrides = {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "application/octet-stream",
        "application/pdf": "application/octet-stream",
        "application/x-ndjson": "text/plain",
    }
    config.write_text(
        f"post_hooks: []\npackage_name_override: {PACKAGE}\nproject_name_override: docgate-client\n"
        + "content_type_overrides:\n"
        + "".join(f'  "{vendor}": "{plain}"\n' for vendor, plain in overrides.items())
    )
    done = subprocess.run(
        [str(GENERATOR), "generate", "--url", schema_url, "--config", str(config), "--output-path", "client"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "Warning" not in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    return folder / "client"


@pytest.fixture
def generated_client(live_server: Any, tmp_path: Path) -> Iterator[ModuleType]:
    """The client package generated from the live server's schema, importable for the test only."""
    root = _generate(f"{live_server.url}/api/v1/schema/", tmp_path)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_generated_client_submits_polls_and_reads_a_result(
    generated_client: ModuleType, actors: Any, live_server: Any, redis_flushed: str, tmp_path: Path
) -> None:
    from docgate_client import AuthenticatedClient
    from docgate_client.api.documents import documents_create, documents_result_retrieve
    from docgate_client.api.jobs import jobs_retrieve
    from docgate_client.models import (
        CaseFinding,
        CategoryAlternative,
        CategoryFinding,
        CategoryRouting,
        DocumentKindEnum,
        EntityFinding,
        Error,
        JobStateEnum,
        Result,
        SubmitFileRequest,
        SubmitResponse,
        SubmitTextRequest,
    )
    from docgate_client.types import File

    client = AuthenticatedClient(base_url=live_server.url, token=actors.acme_key, prefix="Api-Key", timeout=30.0)
    ticket = documents_create.sync(
        client=client,
        body=SubmitTextRequest(
            kind=DocumentKindEnum.TICKET, text="小区门口的路灯坏了半个月，晚上很危险，请尽快修理。", reference="T-7"
        ),
    )
    assert isinstance(ticket, SubmitResponse), ticket
    assert ticket.document.job is not None and ticket.document.job.state == JobStateEnum.QUEUED
    contract = documents_create.sync(
        client=client,
        body=SubmitFileRequest(
            kind=DocumentKindEnum.CONTRACT,
            file=File(payload=io.BytesIO("第一条 合同期限为一年。".encode()), file_name="contract.txt"),
        ),
    )
    assert isinstance(contract, SubmitResponse), contract
    assert (contract.document.kind, contract.document.original_name) == (DocumentKindEnum.CONTRACT, "contract.txt")
    jobs = [ticket.document.job.id, contract.document.job.id]

    def finished() -> bool:
        states = [jobs_retrieve.sync(client=client, id=job).state for job in jobs]
        return all(state in {JobStateEnum.DONE, JobStateEnum.NEEDS_REVIEW} for state in states)

    with celery_worker(log_path=tmp_path / "worker.log"):
        assert wait_until(finished, timeout_s=90), (tmp_path / "worker.log").read_text(errors="replace")[-3000:]

    result = documents_result_retrieve.sync(client=client, id=ticket.document.id)
    assert isinstance(result, Result), result
    assert (result.document, result.version) == (ticket.document.id, 1)
    assert result.data.kind == DocumentKindEnum.TICKET
    # Each finding arrives as the type of its kind (the schema's discriminated union), with its kind's own keys.
    categories = [finding for finding in result.data.findings if isinstance(finding, CategoryFinding)]
    assert len(categories) == 1 and categories[0].kind == "ticket_category" and categories[0].department
    # The routing a dispatcher acts on arrives typed: ranked alternatives with departments, and the threshold check.
    alternatives = categories[0].alternatives
    assert alternatives and all(isinstance(a, CategoryAlternative) and a.department for a in alternatives)
    assert isinstance(categories[0].routing, CategoryRouting) and categories[0].routing.needs_dispatcher is False
    # Every ticket belongs to a repeat case (the first of its case here), typed as well.
    cases = [finding for finding in result.data.findings if isinstance(finding, CaseFinding)]
    assert len(cases) == 1 and cases[0].joined_by == "first"
    assert all(
        isinstance(f, CategoryFinding | EntityFinding | CaseFinding) or f.kind == "urgency"
        for f in result.data.findings
    )

    # A wrong key is DocGate's error body, typed.
    outsider = AuthenticatedClient(base_url=live_server.url, token="dg_unknown.key", prefix="Api-Key")
    refused = documents_result_retrieve.sync_detailed(client=outsider, id=ticket.document.id)
    assert refused.status_code == 401
    assert isinstance(refused.parsed, Error) and refused.parsed.error.code == "authentication_failed"
