"""The key-term grid: an organisation's contracts as rows, their key terms (the legal desk's `term` findings of each
contract's newest result) as columns — filtered, sorted by value and written out as a table for CSV and XLSX."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db.models import OuterRef, Q, Subquery

from contracts.findings import finding_list
from contracts.legal.term_values import (
    CONTRACT_TYPE_NAMES,
    TERM_KINDS,
    TERM_NAMES,
    decimal_of,
    term_date,
    term_number,
    term_sort_key,
    term_value_text,
)
from contracts.models import Document, Organisation, Result
from contracts.tenancy.personal_data import result_data_masked

# The most contracts one grid reads (newest first) before filtering; an organisation past it narrows by filters.
GRID_CANDIDATES = 5000
PRESENCES = ("present", "blank", "missing")
SORT_FIXED = ("title", "created", "type")


@dataclass(frozen=True)
class GridFilter:
    """What a lawyer narrows the grid to and sorts it by (empty: every contract, newest first)."""

    contract_type: str = ""
    title: str = ""
    term: str = ""  # a term kind the presence and range below apply to
    presence: str = ""  # present | blank | missing
    low: str = ""  # the term's value from … (an amount, a rate, days, or a date 2026-03-01)
    high: str = ""  # … to
    sort: str = "created"  # title | created | type | a term kind
    descending: bool = True


@dataclass
class GridCell:
    """One term of one contract: its findings of that kind (a contract has several parties), as the viewer sees them."""

    kind: str
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def status(self) -> str:
        """present (a value agreed), blank (the template leaves it empty) or missing (no such term)."""
        if not self.findings:
            return "missing"
        return "present" if any(f.get("status") != "blank" for f in self.findings) else "blank"

    @property
    def first(self) -> dict[str, Any] | None:
        """The finding the cell sorts and compares by: its first agreed value, else its first blank."""
        agreed = [f for f in self.findings if f.get("status") != "blank"]
        chosen = agreed or self.findings
        return chosen[0] if chosen else None

    @property
    def text(self) -> str:
        """The cell as a table shows it: each finding's value, in text order; empty when missing."""
        return "；".join(dict.fromkeys(term_value_text(f) for f in self.findings))


@dataclass
class GridRow:
    """One contract: its document, type, the result version the cells come from, and a cell per term kind."""

    document_id: uuid.UUID
    title: str
    created_at: datetime
    contract_type: str
    version: int
    cells: dict[str, GridCell]

    def cell(self, kind: str) -> GridCell:
        return self.cells.get(kind) or GridCell(kind)

    @property
    def cell_list(self) -> list[GridCell]:
        """The cells in column order (for templates)."""
        return [self.cell(kind) for kind in TERM_KINDS]


def contract_type_of(findings: list[dict[str, Any]]) -> str:
    """The contract type the legal desk read (its statutory and playbook findings carry it); empty when none did."""
    return next((str(f["contract_type"]) for f in findings if f.get("contract_type")), "")


def _row(document: Document, version: int, data: dict[str, Any], show_pii: bool) -> GridRow:
    shown = data if show_pii else result_data_masked(data)
    findings = [dict(f) for f in finding_list(shown, "findings")]
    cells: dict[str, GridCell] = {}
    for finding in findings:
        if finding.get("kind") == "term" and finding.get("label") in TERM_KINDS:
            cells.setdefault(str(finding["label"]), GridCell(str(finding["label"]))).findings.append(finding)
    for cell in cells.values():
        cell.findings.sort(key=lambda f: (f.get("span") or [0])[0])
    return GridRow(
        document_id=document.pk,
        title=document.title or document.original_name or str(document.pk)[:8],
        created_at=document.created_at,
        contract_type=contract_type_of(findings),
        version=version,
        cells=cells,
    )


def _bound(text: str) -> Decimal | date | None:
    """A range end as the user typed it: a date (2026-03-01) or a number (100000, 0.2, 20%)."""
    text = text.strip().replace(",", "").replace("，", "")
    if not text:
        return None
    if text.count("-") == 2 and text[:4].isdigit():
        return term_date({"value": text})
    if text.endswith("%"):
        number = decimal_of(text[:-1])
        return number / 100 if number is not None else None
    return decimal_of(text)


def _in_range(cell: GridCell, low: Decimal | date | None, high: Decimal | date | None) -> bool:
    found = cell.first
    if found is None:
        return False
    value: Decimal | date | None = term_date(found) if isinstance(low or high, date) else term_number(found)
    if value is None:
        return False
    return (low is None or low <= value) and (high is None or value <= high)  # type: ignore[operator]


def _wanted(row: GridRow, chosen: GridFilter, low: Decimal | date | None, high: Decimal | date | None) -> bool:
    if chosen.contract_type and row.contract_type != chosen.contract_type:
        return False
    if chosen.term not in TERM_KINDS:
        return True
    cell = row.cell(chosen.term)
    if chosen.presence in PRESENCES and cell.status != chosen.presence:
        return False
    return (low is None and high is None) or _in_range(cell, low, high)


def _sorted(rows: list[GridRow], chosen: GridFilter) -> list[GridRow]:
    """Rows by the chosen column; for a term column blanks and missing terms stay last in either direction."""
    if chosen.sort in TERM_KINDS:
        keyed = [(term_sort_key(row.cell(chosen.sort).first), row) for row in rows]
        valued = sorted((k for k in keyed if k[0][0] < 3), key=lambda k: k[0], reverse=chosen.descending)
        rest = sorted((k for k in keyed if k[0][0] >= 3), key=lambda k: k[0][0])
        return [row for _, row in [*valued, *rest]]
    if chosen.sort == "title":
        return sorted(rows, key=lambda row: row.title, reverse=chosen.descending)
    if chosen.sort == "type":
        return sorted(rows, key=lambda row: row.contract_type, reverse=chosen.descending)
    return sorted(rows, key=lambda row: row.created_at, reverse=chosen.descending)


def term_grid(organisation: Organisation, chosen: GridFilter, *, show_pii: bool) -> list[GridRow]:
    """The organisation's analysed contracts as grid rows (masked unless the viewer sees personal data), filtered
    and sorted; another organisation's contracts never appear."""
    newest = Result.objects.filter(document=OuterRef("pk")).order_by("-version").values("version")[:1]
    documents = Document.objects.filter(organisation=organisation, kind="contract").annotate(version=Subquery(newest))
    documents = documents.filter(version__isnull=False)
    if chosen.title.strip():
        query = chosen.title.strip()
        documents = documents.filter(Q(title__icontains=query) | Q(original_name__icontains=query))
    candidates = list(documents.defer("text").order_by("-created_at")[:GRID_CANDIDATES])
    data = dict(
        Result.objects.filter(
            organisation=organisation,
            document_id__in=[d.pk for d in candidates],
            version=Subquery(
                Result.objects.filter(document=OuterRef("document")).order_by("-version").values("version")[:1]
            ),
        ).values_list("document_id", "data")
    )
    low, high = _bound(chosen.low), _bound(chosen.high)
    rows = [_row(d, d.version, data.get(d.pk) or {}, show_pii) for d in candidates]
    return _sorted([row for row in rows if _wanted(row, chosen, low, high)], chosen)


def grid_header() -> list[str]:
    """The export's column names: contract, type, result version, then each term's Chinese name."""
    return ["合同", "合同类型", "结果版本", *(TERM_NAMES[kind] for kind in TERM_KINDS)]


def grid_table(rows: list[GridRow]) -> list[list[str]]:
    """The rows as the export writes them: every cell its values as text (blank terms read （空白待填）)."""
    return [
        [
            row.title,
            CONTRACT_TYPE_NAMES.get(row.contract_type, row.contract_type),
            str(row.version),
            *(row.cell(kind).text for kind in TERM_KINDS),
        ]
        for row in rows
    ]


def grid_json(row: GridRow) -> dict[str, Any]:
    """One row as the API returns it: each term's status, its text and the findings (id, value, span …)."""
    return {
        "document": str(row.document_id),
        "title": row.title,
        "contract_type": row.contract_type,
        "result_version": row.version,
        "created_at": row.created_at.isoformat(),
        "terms": {
            kind: {
                "status": row.cell(kind).status,
                "text": row.cell(kind).text,
                "findings": [
                    {
                        key: f.get(key)
                        for key in ("id", "value", "normalised", "status", "span", "confidence", "review")
                        if key in f
                    }
                    for f in row.cell(kind).findings
                ],
            }
            for kind in TERM_KINDS
        },
    }


def grid_filter_from(params: Mapping[str, Any]) -> GridFilter:
    """The grid filter a query string asks for (?contract_type=&title=&term=&presence=&low=&high=&sort=&order=);
    unknown values fall back to no filter and the newest contracts first."""

    def given(name: str, limit: int = 200) -> str:
        return str(params.get(name) or "").strip()[:limit]

    sort = given("sort", 40)
    return GridFilter(
        contract_type=given("contract_type", 50),
        title=given("title"),
        term=term if (term := given("term", 40)) in TERM_KINDS else "",
        presence=presence if (presence := given("presence", 20)) in PRESENCES else "",
        low=given("low", 40),
        high=given("high", 40),
        sort=sort if sort in TERM_KINDS or sort in SORT_FIXED else "created",
        descending=given("order", 4) != "asc",
    )
