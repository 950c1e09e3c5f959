"""The key-term grid through the API: Acme's key reads the rows with the portal's filters and exports them (Alice,
a submitter, reads them masked); Rita decides a cell with her session (a key never may); Globex sees nothing."""

from __future__ import annotations

import csv
import io
from typing import Any

import openpyxl
import pytest
from rest_framework.test import APIClient

from contracts.legal.grid import grid_header
from contracts.models import AuditEvent, ReviewerExample
from tests.term_grid_contracts import term_finding, three_contracts

pytestmark = pytest.mark.django_db


def _session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def test_the_api_returns_the_grid_rows_with_the_portals_filters(actors: Any, acme_api: Any) -> None:
    contracts = three_contracts(actors.acme)
    answer = acme_api.get("/api/v1/contracts/terms/", {"sort": "price", "order": "asc"})
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    titles = [row["title"] for row in body["results"]]
    assert body["count"] == 3 and titles == ["设备采购合同", "房屋租赁合同", "劳动合同书"]
    lease = body["results"][1]
    price = lease["terms"]["price"]
    assert price["status"] == "present" and price["text"] == "¥100,000.00（含税）"
    [finding] = price["findings"]
    assert finding["id"] == term_finding(contracts["lease"], "price")["id"] and finding["value"]["amount"] == "100000"
    assert lease["terms"]["non_compete"] == {"status": "missing", "text": "", "findings": []}
    assert "王小明（劳动者/乙方）" in body["results"][2]["terms"]["party"]["text"], "the organisation's key sees it all"
    masked = _session(actors.alice).get("/api/v1/contracts/terms/", {"sort": "price", "order": "asc"}).json()
    labour = masked["results"][2]["terms"]["party"]
    assert "王小明" not in str(labour) and "＊＊＊（劳动者/乙方）" in labour["text"], "a submitter sees it masked"
    blank = acme_api.get("/api/v1/contracts/terms/", {"term": "deposit", "presence": "blank"}).json()
    assert [row["title"] for row in blank["results"]] == ["设备采购合同"]
    paged = acme_api.get("/api/v1/contracts/terms/", {"page_size": 2, "page": 2, "sort": "title"}).json()
    assert paged["count"] == 3 and len(paged["results"]) == 1
    assert acme_api.get("/api/v1/contracts/terms/", {"presence": "sometimes"}).status_code == 400


def test_the_api_exports_csv_and_xlsx_with_the_filters(actors: Any, acme_api: Any) -> None:
    three_contracts(actors.acme)
    as_csv = acme_api.get("/api/v1/contracts/terms.csv", {"term": "price", "low": "10000"})
    assert as_csv.status_code == 200 and as_csv.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(as_csv.content.decode("utf-8-sig"))))
    assert rows[0] == grid_header() and [r[0] for r in rows[1:]] == ["房屋租赁合同"]
    as_xlsx = acme_api.get("/api/v1/contracts/terms.xlsx", {"term": "price", "low": "10000"})
    sheet = openpyxl.load_workbook(io.BytesIO(as_xlsx.content)).active
    assert sheet is not None
    assert [["" if v is None else str(v) for v in r] for r in sheet.iter_rows(values_only=True)] == rows


def test_a_reviewer_decides_a_cell_through_the_api_and_a_key_may_not(actors: Any, acme_api: Any) -> None:
    lease = three_contracts(actors.acme)["lease"]
    penalty = term_finding(lease, "penalty")
    url = f"/api/v1/documents/{lease.pk}/terms/{penalty['id']}/decision/"
    assert acme_api.post(url, {"decision": "approve"}, format="json").status_code == 403
    rita = _session(actors.rita)
    answer = rita.post(url, {"decision": "correct", "value": "日千分之三", "result_version": 1}, format="json")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["result_version"] == 2 and answer.json()["finding"]["normalised"] == "0.003/day"
    assert AuditEvent.objects.filter(action="review.finding_decided", object_id=str(lease.pk)).count() == 1
    stale = rita.post(url, {"decision": "approve", "result_version": 1}, format="json")
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_version"
    grid = acme_api.get("/api/v1/contracts/terms/", {"title": "租赁"}).json()["results"][0]["terms"]["penalty"]
    assert grid["text"] == "日千分之三" and grid["findings"][0]["review"] == "corrected"
    [example] = ReviewerExample.objects.filter(document=lease)
    assert (example.task, example.reviewer, example.kind, example.decision) == (None, actors.rita, "finding", "correct")
    assert (example.finding_id, example.finding_kind) == (penalty["id"], "term")
    assert (example.previous, example.label) == (penalty["normalised"], "0.003/day")
    assert (example.judged_version, example.reviewed_result.version) == (1, 2)


def test_another_organisation_sees_and_decides_nothing(actors: Any, globex_api: Any) -> None:
    lease = three_contracts(actors.acme)["lease"]
    assert globex_api.get("/api/v1/contracts/terms/").json() == {"count": 0, "page": 1, "results": []}
    exported = globex_api.get("/api/v1/contracts/terms.csv").content.decode("utf-8-sig")
    assert exported.strip() == ",".join(grid_header())
    price = term_finding(lease, "price")
    oscar = _session(actors.oscar)
    answer = oscar.post(f"/api/v1/documents/{lease.pk}/terms/{price['id']}/decision/", {"decision": "approve"})
    assert answer.status_code == 404 and lease.results.count() == 1


def test_the_schema_documents_the_grid() -> None:
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    grid = paths["/api/v1/contracts/terms/"]["get"]
    assert {p["name"] for p in grid["parameters"]} >= {"term", "presence", "low", "high", "sort", "page_size"}
    assert "/api/v1/contracts/terms.{file_format}" in paths
    assert "post" in paths["/api/v1/documents/{document_id}/terms/{finding_id}/decision/"]
