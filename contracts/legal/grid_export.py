"""The key-term grid as a file: CSV (UTF-8 with a BOM, so that Excel reads the Chinese) or an XLSX workbook."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from openpyxl import Workbook
from openpyxl.styles import Font

from contracts.legal.grid import GridRow, grid_header, grid_table

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
GRID_FORMATS = ("csv", "xlsx")
# Characters a spreadsheet reads as the start of a formula; a cell starting with one is written as text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class GridFile:
    """An exported grid: its bytes, content type and file name."""

    body: bytes
    content_type: str
    filename: str


def _inert(value: str) -> str:
    """A cell value a spreadsheet will not run: a leading formula character is escaped with an apostrophe."""
    return f"'{value}" if value.startswith(_FORMULA_STARTS) else value


def grid_csv(rows: list[GridRow]) -> bytes:
    """The grid as CSV with a header row, UTF-8 with a byte-order mark."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(grid_header())
    writer.writerows([[_inert(value) for value in line] for line in grid_table(rows)])
    return out.getvalue().encode("utf-8-sig")


def grid_xlsx(rows: list[GridRow]) -> bytes:
    """The grid as one worksheet with a bold, frozen header row and readable column widths."""
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None  # a new workbook has its first sheet
    sheet.title = "关键条款"
    sheet.append(grid_header())
    for line in grid_table(rows):
        sheet.append([_inert(value) for value in line])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "B2"
    for column in sheet.columns:
        widest = max(len(str(cell.value or "")) for cell in column)
        sheet.column_dimensions[column[0].column_letter].width = min(60, max(10, widest * 2))
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def grid_file(rows: list[GridRow], file_format: str) -> GridFile:
    """The grid in `file_format` (csv or xlsx)."""
    if file_format == "xlsx":
        return GridFile(grid_xlsx(rows), XLSX, "contract-terms.xlsx")
    return GridFile(grid_csv(rows), "text/csv; charset=utf-8", "contract-terms.csv")
