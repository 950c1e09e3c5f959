"""Key-term findings as a lawyer reads them: Chinese names, values written out (¥100,000.00（含税）, 3 年, 日万分之五)
and a value to sort and compare by (dates as dates, amounts and rates as numbers)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from rules.contract_terms import AGREED, BLANK, Deposit, find_money, parse_date, parse_duration, parse_rate, value_json
from rules.contract_terms.model import TermValue

# The grid's columns, in the order a contract states them (rules.contract_terms kinds).
TERM_KINDS = (
    "party",
    "signing_date",
    "effective_date",
    "expiry_date",
    "term",
    "renewal",
    "price",
    "payment",
    "deposit",
    "penalty",
    "late_interest",
    "notice_period",
    "governing_law",
    "forum",
    "probation",
    "non_compete",
)
TERM_NAMES = {
    "party": "当事方",
    "signing_date": "签订日期",
    "effective_date": "生效日期",
    "expiry_date": "到期日期",
    "term": "合同期限",
    "renewal": "续期",
    "price": "价款",
    "payment": "付款安排",
    "deposit": "定金",
    "penalty": "违约金",
    "late_interest": "逾期利息",
    "notice_period": "通知期限",
    "governing_law": "适用法律",
    "forum": "争议解决机构",
    "probation": "试用期",
    "non_compete": "竞业限制",
}
# The contract types the legal desk reads (rules.clauses.statutes.contract_type), as the export names them.
CONTRACT_TYPE_NAMES = {
    "lease": "租赁合同",
    "loan": "借款合同",
    "labour": "劳动合同",
    "sale": "买卖合同",
    "general": "其他合同",
}
BLANK_TEXT = "（空白待填）"
_CURRENCY_SIGNS = {"CNY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "JP¥", "HKD": "HK$"}
_UNIT_NAMES = {"year": "年", "month": "个月", "week": "周", "day": "天", "workday": "个工作日", "hour": "小时"}
_PERIOD_NAMES = {"day": "日", "month": "月", "year": "年"}
_BASE_NAMES = {
    "unpaid": "逾期款项",
    "price": "合同价款",
    "rent": "租金",
    "wage": "工资",
    "loan": "借款",
    "undelivered": "未交付部分",
}
_LAW_NAMES = {"PRC law": "中华人民共和国法律"}
_FORUM_NAMES = {"court": "法院", "arbitration": "仲裁"}
_DIGITS = "零一二三四五六七八九十"
# Days per unit, so that durations of different units sort together (a month as 30 days, as courts count it).
_UNIT_DAYS = {"year": Decimal(365), "month": Decimal(30), "week": Decimal(7), "day": Decimal(1), "workday": Decimal(1)}
_UNIT_DAYS["hour"] = Decimal(1) / 24


def decimal_of(value: Any) -> Decimal | None:
    """A JSON number or decimal string as a finite Decimal; None for anything else."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None  # NaN cannot be compared, and no term is infinite


def _plain(number: Decimal) -> str:
    """A number without trailing zeros or exponent (3.0 → 3, 0.50 → 0.5)."""
    return format(number.normalize(), "f")


def money_text(value: Mapping[str, Any]) -> str:
    """¥100,000.00（含税） — the amount with its currency sign and tax status where the contract says it."""
    amount = decimal_of(value.get("amount"))
    if amount is None:
        return ""
    currency = str(value.get("currency") or "CNY")
    sign = _CURRENCY_SIGNS.get(currency, f"{currency} ")
    included = value.get("tax_included")
    tax = "（含税）" if included is True else "（不含税）" if included is False else ""
    return f"{sign}{amount:,.2f}{tax}"


def duration_text(value: Mapping[str, Any]) -> str:
    """3 年, 30 天, 5 个工作日."""
    amount = decimal_of(value.get("amount"))
    if amount is None:
        return ""
    unit = str(value.get("unit") or "")
    return f"{_plain(amount)} {_UNIT_NAMES.get(unit, unit)}"


def _small_number(n: int) -> str:
    return _DIGITS[n] if 0 <= n <= 10 else str(n)


def fraction_text(fraction: Decimal) -> str:
    """A rate as contracts write it: 20%, 千分之三, 万分之五 (the smallest scale that makes it a whole number)."""
    if fraction >= Decimal("0.01") or fraction == 0:
        return f"{_plain(fraction * 100)}%"
    for scale, name in ((1000, "千分之"), (10000, "万分之")):
        scaled = fraction * scale
        if scaled == scaled.to_integral_value():
            return f"{name}{_small_number(int(scaled))}"
    return f"{_plain(fraction * 100)}%"


def rate_text(value: Mapping[str, Any]) -> str:
    """日万分之五（逾期款项）, 20%（合同价款，最高 30%）."""
    fraction = decimal_of(value.get("fraction"))
    if fraction is None:
        return ""
    period = _PERIOD_NAMES.get(str(value.get("period") or ""), "")
    notes = [_BASE_NAMES.get(str(base), str(base))] if (base := value.get("base")) else []
    if (cap := decimal_of(value.get("cap"))) is not None:
        notes.append(f"最高 {fraction_text(cap)}")
    return f"{period}{fraction_text(fraction)}" + (f"（{'，'.join(notes)}）" if notes else "")


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return _LAW_NAMES.get(value, value)
    if not isinstance(value, Mapping):
        return "" if value is None else str(value)
    kind = value.get("type")
    if kind == "money":
        return money_text(value)
    if kind == "duration":
        return duration_text(value)
    if kind == "rate":
        return rate_text(value)
    if kind == "deposit":
        shown = _value_text(value.get("amount")) or _value_text(value.get("rate"))
        share = decimal_of(value.get("share_of_price"))
        return shown + (f"（占价款 {fraction_text(share)}）" if share is not None and shown else "")
    if kind == "paymentstep":
        share = decimal_of(value.get("share"))
        parts = [fraction_text(share) if share is not None else "", _value_text(value.get("amount"))]
        if isinstance(value.get("due"), Mapping):
            parts.append(f"{value.get('event') or ''}后 {duration_text(value['due'])}".strip())
        return "，".join(part for part in parts if part)
    if kind == "renewal":
        head = "自动续期" if value.get("automatic") else "协商续期"
        notice = _value_text(value.get("notice"))
        return head + (f"（提前 {notice}通知）" if notice else "")
    if kind == "forum":
        return f"{_FORUM_NAMES.get(str(value.get('kind')), str(value.get('kind') or ''))}：{value.get('name') or ''}"
    if kind == "party":
        roles = value.get("roles") or []
        name = str(value.get("name") or BLANK_TEXT)
        return name + (f"（{'/'.join(str(r) for r in roles)}）" if roles else "")
    return str(value)


def term_value_text(finding: Mapping[str, Any]) -> str:
    """A term finding's value as a lawyer reads it; （空白待填） for a blank the template leaves."""
    if finding.get("status") == BLANK:
        return BLANK_TEXT
    return _value_text(finding.get("value")) or str(finding.get("normalised") or "")


def term_number(finding: Mapping[str, Any]) -> Decimal | None:
    """The number a term compares by: an amount of money, a rate's fraction, a duration in days; None otherwise
    (dates compare by `term_sort_key`)."""
    value = finding.get("value")
    if finding.get("status") == BLANK or not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if kind == "money":
        return decimal_of(value.get("amount"))
    if kind == "rate":
        return decimal_of(value.get("fraction"))
    if kind == "duration":
        amount = decimal_of(value.get("amount"))
        days = _UNIT_DAYS.get(str(value.get("unit")))
        return amount * days if amount is not None and days is not None else None
    if kind == "deposit":
        for part in ("amount", "rate"):
            if isinstance(value.get(part), Mapping):
                return term_number({"value": value[part]})
    if kind == "paymentstep":
        return (
            decimal_of(value.get("share"))
            if value.get("share") is not None
            else term_number({"value": value.get("amount")})
        )
    if kind == "renewal" and isinstance(value.get("notice"), Mapping):
        return term_number({"value": value["notice"]})
    return None


def term_date(finding: Mapping[str, Any]) -> date | None:
    """A date term's value as a date (a year or a month alone counts from its first day)."""
    value = finding.get("value")
    if finding.get("status") == BLANK or not isinstance(value, str) or not value[:4].isdigit():
        return None
    parts = [*value.split("-"), "01", "01"][:3]
    try:
        return date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None


def term_sort_key(finding: Mapping[str, Any] | None) -> tuple[int, Any]:
    """Sort key of a cell: numbers as numbers, dates as dates, other values by their text; blanks after values and
    missing terms last (the rank comes first so that different kinds of key never meet)."""
    if finding is None:
        return (4, "")
    if finding.get("status") == BLANK:
        return (3, "")
    if (number := term_number(finding)) is not None:
        return (0, number)
    if (day := term_date(finding)) is not None:
        return (1, day)
    return (2, term_value_text(finding))


_DATE_KINDS = frozenset({"signing_date", "effective_date", "expiry_date"})
_DURATION_KINDS = frozenset({"term", "notice_period", "probation", "non_compete"})
_MONEY_KINDS = frozenset({"price", "deposit", "penalty", "late_interest"})
_RATE_KINDS = frozenset({"penalty", "late_interest", "deposit"})


def _reading(kind: str, text: str) -> TermValue:
    """The value a reviewer typed for a term of `kind`, read as the rules read contracts; the text itself where
    no reader fits (a party, a forum, a payment schedule)."""
    if kind in _DATE_KINDS:
        return parse_date(text) or text
    if kind in _DURATION_KINDS:
        return parse_duration(text) or text
    if kind in _RATE_KINDS and (rate := parse_rate(text)) is not None:
        return Deposit(None, rate, None) if kind == "deposit" else rate
    if kind in _MONEY_KINDS and len(money := find_money(text)) == 1:
        return Deposit(money[0][2], None, None) if kind == "deposit" else money[0][2]
    return text


def term_correction(kind: str, text: str) -> dict[str, Any]:
    """A reviewer's correction of a key term from the value they typed: its value, normalised form and status
    (an empty entry marks the term blank)."""
    text = text.strip()
    if not text:
        return {"value": None, "normalised": BLANK, "status": BLANK}
    value = _reading(kind, text)
    normalised = value if isinstance(value, str) else value.normalised() if value is not None else BLANK
    return {"value": value_json(value), "normalised": normalised, "status": AGREED}
