"""The key-term grid of Acme's contracts: Rita (reviewer) sorts it by value, filters it, exports it as CSV and XLSX
that read back as the grid's rows, and corrects a cell (a new result version, audited, shown in the grid); Alice
(submitter) sees a person's name masked and cannot decide; Oscar of Globex sees none of it."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import openpyxl
import pytest

from contracts.legal.grid import GridFilter, grid_header, grid_table, term_grid
from contracts.models import AuditEvent, Document, Result
from tests.frontend.test_portal import signed_in
from tests.term_grid_contracts import term_finding, three_contracts

pytestmark = pytest.mark.django_db


def _titles(client: Any, query: str = "") -> list[str]:
    """The contracts of the grid page, in order."""
    page = client.get(f"/contracts/terms/{query}")
    assert page.status_code == 200
    return re.findall(r'data-testid="grid-contract">([^<]*)</a>', page.content.decode())


def test_the_grid_sorts_by_value_and_filters(client: Any, actors: Any) -> None:
    three_contracts(actors.acme)
    signed_in(client, actors.rita)
    # Amounts as numbers (¥9,000 before ¥100,000, though "100000" < "9000" as text); a missing price last either way.
    assert _titles(client, "?sort=price&order=asc") == ["设备采购合同", "房屋租赁合同", "劳动合同书"]
    assert _titles(client, "?sort=price&order=desc") == ["房屋租赁合同", "设备采购合同", "劳动合同书"]
    assert _titles(client, "?sort=signing_date&order=asc")[:2] == ["设备采购合同", "房屋租赁合同"]  # dates as dates
    assert _titles(client, "?term=deposit&presence=blank") == ["设备采购合同"]  # 定金＿＿＿元 is a blank
    assert _titles(client, "?term=price&presence=missing") == ["劳动合同书"]
    assert sorted(_titles(client, "?term=price&presence=present")) == ["房屋租赁合同", "设备采购合同"]
    assert _titles(client, "?term=price&low=10000") == ["房屋租赁合同"]  # a value range, in yuan
    assert _titles(client, "?term=price&low=1000&high=9000") == ["设备采购合同"]
    assert _titles(client, "?term=signing_date&low=2026-01-01") == ["房屋租赁合同"]  # a date range
    assert _titles(client, "?term=penalty&high=0.1%") == ["房屋租赁合同"]  # 日万分之五 = 0.05 %
    assert _titles(client, "?title=采购") == ["设备采购合同"]
    assert len(_titles(client, "?term=price&low=NaN")) == 3, "a bound that is no number bounds nothing"
    assert _titles(client, "?contract_type=labour") == ["劳动合同书"]  # the type the legal desk read
    assert _titles(client, "?contract_type=lease&sort=title") == ["房屋租赁合同"]


def test_the_grid_shows_readable_values_linked_to_their_spans(client: Any, actors: Any) -> None:
    contracts = three_contracts(actors.acme)
    page = signed_in(client, actors.rita).get("/contracts/terms/").content.decode()
    price = term_finding(contracts["lease"], "price")
    link = f'href="/documents/{contracts["lease"].pk}/#finding-{price["id"]}"'
    assert re.search(link + r'[^>]*data-testid="term-link">¥100,000.00（含税）</a>', page)
    assert "日万分之五（逾期款项）" in page and "（空白待填）" in page and "仲裁：北京仲裁委员会" in page
    assert ">价款</a>" in page and ">定金</a>" in page, "column names in Chinese, the portal's language"
    result_page = client.get(f"/documents/{contracts['lease'].pk}/").content.decode()
    assert re.search(r"价款: <span data-testid=\"term-value\">¥100,000.00（含税）</span>", result_page)
    assert f'id="finding-{price["id"]}"' in result_page  # the cell's link lands on the finding's row and marks


def test_the_grid_pages_through_many_contracts(client: Any, actors: Any) -> None:
    lease = three_contracts(actors.acme)["lease"]
    result = lease.latest_result()
    assert result is not None
    for n in range(60):  # copies of the analysed lease, as an organisation with many contracts has
        copy = Document.objects.create(
            organisation=actors.acme,
            kind="contract",
            source="api",
            title=f"租赁合同 {n:02d}",
            content_type="text/plain",
            size_bytes=1,
            sha256=f"{n:064x}",
            text=lease.text,
        )
        Result.objects.create(
            organisation=actors.acme, document=copy, job_id=result.job_id, version=1, data=result.data
        )
    signed_in(client, actors.rita)
    first, second = _titles(client, "?sort=title&order=asc"), _titles(client, "?sort=title&order=asc&page=2")
    assert len(first) == 50 and len(second) == 13 and first[0] == "劳动合同书"
    assert not set(first) & set(second)


def _export_rows(client: Any, file_format: str, query: str) -> list[list[str]]:
    answer = client.get(f"/contracts/terms.{file_format}{query}")
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    if file_format == "csv":
        assert answer.content.startswith(b"\xef\xbb\xbf"), "UTF-8 with a BOM: Excel reads the Chinese"
        return list(csv.reader(io.StringIO(answer.content.decode("utf-8-sig"))))
    sheet = openpyxl.load_workbook(io.BytesIO(answer.content)).active
    assert sheet is not None
    return [["" if v is None else str(v) for v in line] for line in sheet.iter_rows(values_only=True)]


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_the_export_reads_back_as_the_grid_rows_with_its_filters(client: Any, actors: Any, file_format: str) -> None:
    three_contracts(actors.acme)
    signed_in(client, actors.rita)
    everything = _export_rows(client, file_format, "?sort=price&order=asc")
    grid = term_grid(actors.acme, GridFilter(sort="price", descending=False), show_pii=True)
    assert everything == [grid_header(), *grid_table(grid)]
    assert [line[0] for line in everything[1:]] == _titles(client, "?sort=price&order=asc")
    lease = everything[[line[0] for line in everything].index("房屋租赁合同")]
    assert lease[grid_header().index("价款")] == "¥100,000.00（含税）"
    assert lease[grid_header().index("违约金")] == "日万分之五（逾期款项）"
    filtered = _export_rows(client, file_format, "?term=deposit&presence=blank")
    assert [line[0] for line in filtered[1:]] == ["设备采购合同"], "the filters apply to the export"
    assert filtered[1][grid_header().index("定金")] == "（空白待填）"


def test_a_cell_correction_makes_a_new_version_audited_and_shown_in_the_grid(client: Any, actors: Any) -> None:
    lease = three_contracts(actors.acme)["lease"]
    price = term_finding(lease, "price")
    signed_in(client, actors.rita)
    answer = client.post(
        f"/documents/{lease.pk}/terms/{price['id']}/decide/",
        {"decision": "correct", "value": "壹拾贰万元整（含税）", "version": 1, "next": "/contracts/terms/?sort=price"},
    )
    assert answer.status_code == 302 and answer["Location"] == "/contracts/terms/?sort=price"
    latest = lease.latest_result()
    assert latest is not None and latest.version == 2 and latest.created_by == actors.rita
    corrected = term_finding(lease, "price")
    assert corrected["review"] == "corrected" and corrected["normalised"] == "CNY 120000"
    assert corrected["original"]["normalised"] == "CNY 100000" and corrected["span"] == price["span"]
    event = AuditEvent.objects.get(action="review.finding_decided", object_id=str(lease.pk))
    assert event.actor_user == actors.rita and event.after is not None and event.after["result_version"] == 2
    assert event.before == {"finding_id": price["id"], "result_version": 1, "decision": None}
    page = client.get("/contracts/terms/").content.decode()
    assert "¥120,000.00（含税）" in page and "¥100,000.00" not in page and 'data-testid="term-review"' in page
    # A decision on the version before is refused (someone else changed it meanwhile): no new version.
    stale = client.post(f"/documents/{lease.pk}/terms/{price['id']}/decide/", {"decision": "approve", "version": 1})
    assert stale.status_code == 302 and lease.results.count() == 2
    approved = client.post(f"/documents/{lease.pk}/terms/{price['id']}/decide/", {"decision": "approve", "version": 2})
    assert approved.status_code == 302 and lease.results.count() == 3
    assert term_finding(lease, "price")["review"] == "approved"


def test_a_submitter_sees_personal_data_masked_and_cannot_decide(client: Any, actors: Any) -> None:
    labour = three_contracts(actors.acme)["labour"]
    signed_in(client, actors.alice)
    page = client.get("/contracts/terms/").content.decode()
    assert "王小明" not in page and "＊＊＊（劳动者/乙方）" in page, "a person's name is masked for submitters"
    assert "某某科技有限公司（用人单位/甲方）" in page and 'data-action="approve"' not in page
    export = client.get("/contracts/terms.csv").content.decode("utf-8-sig")
    assert "王小明" not in export and "110101199003074578" not in export
    party = term_finding(labour, "party")
    refused = client.post(f"/documents/{labour.pk}/terms/{party['id']}/decide/", {"decision": "approve"})
    assert refused.status_code == 403 and labour.results.count() == 1
    assert "王小明" in signed_in(client, actors.rita).get("/contracts/terms/").content.decode()


def test_an_outsider_sees_nothing_of_another_organisations_contracts(client: Any, actors: Any) -> None:
    lease = three_contracts(actors.acme)["lease"]
    signed_in(client, actors.oscar)
    assert _titles(client) == []
    assert client.get("/contracts/terms.csv").content.decode("utf-8-sig").strip() == ",".join(grid_header())
    price = term_finding(lease, "price")
    answer = client.post(f"/documents/{lease.pk}/terms/{price['id']}/decide/", {"decision": "approve"})
    assert answer.status_code == 404 and lease.results.count() == 1
