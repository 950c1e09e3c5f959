"""The small value readers the statutory checks use: periods in months, dates, a term between two dates."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from rules.clauses.statutes.durations import find_dates, find_periods, term_months


@pytest.mark.parametrize(
    ("text", "months"),
    [
        ("期限为三年", [Decimal(36)]),
        ("试用期为六个月", [Decimal(6)]),
        ("试用期30天", [Decimal(1)]),
        ("一年半", [Decimal(18)]),
        ("半年", [Decimal(6)]),
        ("签订于2026年3月1日", []),
        ("其中试用期为　　个月（自一九　　年）", []),
        ("试用期为三（3）个月", [Decimal(3)]),
        ("竞业限制期限为离职后第三年起", []),
    ],
    ids=[
        "years",
        "months",
        "days",
        "year-and-a-half",
        "half-a-year",
        "a-date-is-no-period",
        "blank-form",
        "number-repeated-in-digits",
        "an-ordinal-year-is-no-period",
    ],
)
def test_periods_in_months(text: str, months: list[Decimal]) -> None:
    assert [p.months for p in find_periods(text)] == months


@pytest.mark.parametrize(
    ("text", "day"),
    [("2026年3月1日", date(2026, 3, 1)), ("二〇二六年三月一日", date(2026, 3, 1)), ("2026-03-01", date(2026, 3, 1))],
    ids=["arabic", "chinese", "iso"],
)
def test_dates(text: str, day: date) -> None:
    assert [d.value for d in find_dates(f"本合同于{text}签订")] == [day]


def test_a_term_between_dates_counts_its_last_day() -> None:
    term = term_months("合同期限自2026年1月1日起至2045年12月31日止")
    assert term is not None and term[0] == Decimal(240)
