"""Durations as amount + unit: 三年, 24个月, 五个工作日, 自签订之日起三年; 96年 alone is a year, not a duration."""

from __future__ import annotations

import re
from decimal import Decimal

from rules.amounts import ascii_digits, parse_number
from rules.contract_terms.model import Duration, Found

_UNITS = {
    "个工作日": "workday", "工作日": "workday", "个自然日": "day", "自然日": "day", "日历日": "day",
    "个日历日": "day", "个月": "month", "个小时": "hour", "小时": "hour", "年": "year", "周年": "year",
    "周": "week", "个星期": "week", "星期": "week", "日": "day", "天": "day",
}  # fmt: skip
_UNIT_ALTERNATION = "|".join(sorted(_UNITS, key=len, reverse=True))
_CN = "一二三四五六七八九十百两零〇"
# Not after a month (3月1日), a digit, 第 (第三年 is an ordinal) or 每 (每月).
_DURATION_RE = re.compile(
    rf"(?<![月0-9.第每周])(?P<n>[0-9]{{1,3}}(?:\.[0-9]+)?|[{_CN}]{{1,4}}|半)\s?(?:[（(][0-9]{{1,3}}[）)])?\s?(?P<unit>{_UNIT_ALTERNATION})"
    rf"(?P<half>半)?(?![0-9])"
)
# After a year count, these say it is a calendar year (96年3月, 96年度), not a length of time.
_YEAR_NOT_DURATION_RE = re.compile(r"\s?(?:[0-9一二三四五六七八九十]{1,2}月|度|代|级|版)")


def _amount(number: str) -> Decimal | None:
    if number == "半":
        return Decimal("0.5")
    return parse_number(ascii_digits(number))


def _accepted(text: str, match: re.Match[str], amount: Decimal) -> bool:
    """Whether a number + unit is a length of time: not 0, not a two-digit calendar year (96年)."""
    if amount <= 0:
        return False
    number = match["n"]
    if len(number) > 1 and not any(unit in number for unit in "十百") and not number[0].isdigit():
        return False  # 一九 is two digits of a year (一九　　年), not a count
    if _UNITS[match["unit"]] != "year":
        return True
    if _YEAR_NOT_DURATION_RE.match(text, match.end()):
        return False
    # An Arabic number of years above 30 is a year of the calendar (96年), never a contract's length.
    return not (match["n"][0].isdigit() and amount > 30)


def find_durations(text: str, start: int = 0, end: int | None = None) -> list[Found[Duration]]:
    """Return the durations in text[start:end], in text order."""
    found: list[Found[Duration]] = []
    for match in _DURATION_RE.finditer(text, start, len(text) if end is None else end):
        amount = _amount(match["n"])
        if amount is None or not _accepted(text, match, amount):
            continue
        if match["half"]:
            amount += Decimal("0.5")
        found.append(Found(match.start(), match.end(), Duration(amount, _UNITS[match["unit"]])))
    return found


def parse_duration(text: str) -> Duration | None:
    """Return the one duration a phrase states (三年, 五个工作日, 自签订之日起三年), or None."""
    found = find_durations(text)
    return found[0].value if len(found) == 1 else None
