"""Money with tax status, and rates as fractions with base and period (百分之二十, 日万分之五, 每日千分之三)."""

from __future__ import annotations

import re
from decimal import Decimal

from rules.amounts import find_amounts, find_percentages
from rules.contract_terms.model import Found, Money, Rate

_TAX_EXCLUDED_RE = re.compile(r"不含(?:增值)?税|未含(?:增值)?税|不包[含括][^。；\n]{0,6}税|税[费金款]?另[计付行]|税前")
_TAX_INCLUDED_RE = re.compile(r"含(?:增值)?税|包[含括][^。；\n]{0,8}税|税后")
# The period a rate is counted per, read from the few characters before it (日万分之五, 每日千分之三, 年利率).
_PERIOD_CUES = (
    (re.compile(r"(?:每[日天]|按日|日(?:利率|息)?|天)$"), "day"),
    (re.compile(r"(?:每月|按月|月(?:利率|息)?)$"), "month"),
    (re.compile(r"(?:每年|按年|年(?:化)?(?:利率|息)?|年化)$"), "year"),
)
# Per-period cues further back in the clause: 每逾期一天, 以天为单位, 每过期一个日历周, 每月.
_PERIOD_WORDS_RE = re.compile(
    r"每[^，,。；每]{0,6}?(?:日历周|周|[日天](?!历)|月|年)|按[日天月年]|以天为单位|按天数|[日月年](?:利率|息)"
)
_BASE_CUES = (
    (
        "unpaid",
        re.compile(r"未付|欠付|应付未付|逾期(?:付款|支付)?(?:金额|部分|款项|款|之)?|迟延(?:支付|付款)|拖欠|滞纳"),
    ),
    ("price", re.compile(r"合同(?:总)?(?:价|价款|金额|标的|总额)|总(?:价|价款|金额)|价款|货款|工程款|标的")),
    ("rent", re.compile(r"租金")),
    ("wage", re.compile(r"工资|报酬|薪")),
    ("loan", re.compile(r"借款|贷款|本金")),
    ("undelivered", re.compile(r"未交|逾期交|迟延交|未履行")),
)
_CAP_RE = re.compile(r"(?:最高|不(?:得|能|应)?超过|上限|以[^。；]{0,8}为限)")


def tax_status(clause: str) -> bool | None:
    """Whether a clause says its amount includes tax (True), excludes it (False) or says nothing (None)."""
    if _TAX_EXCLUDED_RE.search(clause):
        return False
    return True if _TAX_INCLUDED_RE.search(clause) else None


def find_money(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, Money]]:
    """Return money in text[start:end] with the tax status its clause states."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    tax = tax_status(window)
    return [(start + m.start, start + m.end, Money(m.value, m.currency, tax)) for m in find_amounts(window)]


def _period(before: str) -> str | None:
    for cue, period in _PERIOD_CUES:
        if cue.search(before):
            return period
    return None


def rate_base(clause: str) -> str | None:
    """The base a rate in this clause is counted on (unpaid amount, price, rent, wage, loan), if it says."""
    for base, cue in _BASE_CUES:
        if cue.search(clause):
            return base
    return None


def find_rates(text: str, start: int = 0, end: int | None = None) -> list[Found[Rate]]:
    """Return rates in text[start:end]: each percentage as a fraction, with its period and the clause's base; a
    second percentage after 最高/不超过 is the first one's cap."""
    stop = len(text) if end is None else end
    window = text[start:stop]
    base = rate_base(window)
    found: list[Found[Rate]] = []
    for match in find_percentages(window):
        fraction = (match.value / 100).normalize()
        before = window[max(0, match.start - 6) : match.start]
        if found and _CAP_RE.search(window[found[-1].end - start : match.start]):
            previous = found[-1]
            found[-1] = Found(previous.start, start + match.end, _with_cap(previous.value, fraction))
            continue
        clause_start = max(0, match.start - 30, found[-1].end - start if found else 0)
        period = _period(before) or _period_words(window[clause_start : match.start])
        # The base named in the rate's own phrase (按合同总价的千分之一) wins over the clause's (每逾期一天).
        phrase = re.split(r"[，,]", window[: match.start])[-1]
        rate = Rate(fraction, rate_base(phrase) or base, period)
        found.append(Found(start + match.start, start + match.end, rate))
    return found


def _with_cap(rate: Rate, cap: Decimal) -> Rate:
    return Rate(rate.fraction, rate.base, rate.period, cap)


def _period_words(before: str) -> str | None:
    words = _PERIOD_WORDS_RE.findall(before)
    if not words:
        return None
    word = words[-1]
    if "周" in word:
        return "week"
    if re.search(r"[日天]", word):
        return "day"
    return "month" if "月" in word else "year"


def parse_rate(text: str) -> Rate | None:
    """Return the one rate a phrase states (百分之二十 → 0.2, 日万分之五 → 0.0005/day), or None."""
    found = find_rates(text)
    return found[0].value if len(found) == 1 else None
