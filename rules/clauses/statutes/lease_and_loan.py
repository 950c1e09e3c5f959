"""民法典 checks bound to a contract type: a lease's term (705) and a private loan's interest rate (680, 4 × LPR)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from rules.amounts import parse_number
from rules.clauses.statutes.articles import CC_680, CC_705, RiskFlag, flag
from rules.clauses.statutes.durations import find_dates, term_months
from rules.clauses.statutes.text import ContractText
from rules.contract_terms.money import find_rates

LEASE_OVER_20_YEARS = "lease_over_20_years"
INTEREST_OVER_LPR_CAP = "interest_over_lpr_cap"

LEASE_LIMIT_MONTHS = Decimal(240)
_PARTIES_REACH = 400  # the parties are defined in the first lines
LPR_PATH = Path(__file__).resolve().parents[2] / "packs" / "lpr.json"

_LEASE_TERM = re.compile(r"租赁期限|租赁期|租期|租用期")
_INTEREST = re.compile(r"利率|利息|年息|月息|日息")
_NOT_INTEREST = re.compile(r"违约金|罚息")
# 年息一分 is 10 % a year, 月息二分 2 % a month: the old 分 counts a tenth of the year or a hundredth of the month.
_FEN = re.compile(r"(?P<period>年|月)息\s*(?P<number>\d+(?:\.\d+)?|[一二两三四五六七八九十]+)\s*分")
# Periods of a year, per period a rate is counted in (a rate that names none is a year's).
_PER_YEAR = {"year": Decimal(1), "month": Decimal(12), "week": Decimal(52), "day": Decimal(365)}
# 民间借贷 only: a bank or other financial lender is under the central bank's rules, not this cap.
_FINANCIAL_LENDER = re.compile(r"银行|信用(?:合作)?社|金融机构|贷款方|贷款单位|小额贷款公司")
# 加收利息30% / 上浮20% raise a base rate by a share: not a rate of their own.
_SURCHARGE = re.compile(r"加收|上浮|提高|加息|基础上")
_SIGNED = re.compile(r"签订|签署|订立|签约|签字|成立|出借日|借款日|放款")


@dataclass(frozen=True)
class LoanPrimeRates:
    """The one-year LPR history (pack id, version) and the multiple of it that caps a private loan's rate."""

    pack: str
    version: str
    cap_multiple: Decimal
    rates: tuple[tuple[date, Decimal], ...]  # (from, percent), oldest first

    def on(self, day: date) -> tuple[date, Decimal]:
        """The quote in force on a day (the oldest one for a day before the first quote)."""
        current = self.rates[0]
        for quoted, rate in self.rates:
            if quoted <= day:
                current = (quoted, rate)
        return current


@lru_cache(maxsize=2)
def load_lpr(path: Path = LPR_PATH) -> LoanPrimeRates:
    """The LPR pack."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rates = tuple(sorted((date.fromisoformat(r["from"]), Decimal(r["one_year"])) for r in data["rates"]))
    return LoanPrimeRates(data["pack"], data["version"], Decimal(data["cap_multiple"]), rates)


def lease_over_20_years(contract: ContractText) -> list[RiskFlag]:
    """A lease term longer than twenty years: the excess is void (民法典第705条)."""
    for (start, _end), sentence in contract.sentences(_LEASE_TERM):
        term = term_months(sentence)
        if term and term[0] > LEASE_LIMIT_MONTHS:
            years = term[0] / 12
            message = f"租赁期限约{years:.0f}年，超过二十年的部分无效"
            span = (start + term[1][0], start + term[1][1])
            return [flag(LEASE_OVER_20_YEARS, "warning", message, CC_705, (span,))]
    return []


def _contract_date(contract: ContractText) -> date | None:
    """When the contract was made: a date in a sentence about signing or lending, else the first date written."""
    for _span, sentence in contract.sentences(_SIGNED):
        dates = find_dates(sentence)
        if dates:
            return dates[0].value
    dates = find_dates(contract.folded)
    return dates[0].value if dates else None


def _annual_rates(sentence: str) -> list[tuple[Decimal, str]]:
    """Every interest rate of a sentence as percent a year, with its words (年利率/月利率/日利率, 月息二分); a cap
    (最高不超过年利率24%) is a rate the contract allows, so it counts too."""
    rates: list[tuple[Decimal, str]] = []
    for match in _FEN.finditer(sentence):
        number = parse_number(match["number"])
        if number is not None:
            rates.append((number * 10 if match["period"] == "年" else number * 12, match.group()))
    for found in find_rates(sentence):
        if _SURCHARGE.search(sentence[max(0, found.start - 8) : found.start]):
            continue
        per_year = _PER_YEAR[found.value.period or "year"]
        words = sentence[found.start : found.end]
        for fraction in (found.value.fraction, found.value.cap):
            if fraction is not None:
                rates.append((fraction * 100 * per_year, words))
    return rates


def interest_over_lpr_cap(contract: ContractText, lpr: LoanPrimeRates | None = None) -> list[RiskFlag]:
    """A private loan's rate above four times the one-year LPR in force when it was made (民法典第680条)."""
    if _FINANCIAL_LENDER.search(contract.folded[:_PARTIES_REACH]):
        return []
    lpr = lpr or load_lpr()
    made = _contract_date(contract)
    quoted, rate = lpr.on(made) if made else lpr.rates[-1]
    cap = rate * lpr.cap_multiple
    for span, sentence in contract.sentences(_INTEREST):
        if _NOT_INTEREST.search(sentence):
            continue
        for yearly, words in _annual_rates(sentence):
            if yearly > cap:
                when = f"合同成立时（{made.isoformat()}）" if made else "最新"
                message = (
                    f"约定利率（{words}）折合年利率约{yearly:.2f}%，超过{when}一年期LPR "
                    f"{rate}%（{quoted.isoformat()}起）的四倍即{cap:.2f}%，超过部分不受保护"
                )
                return [flag(INTEREST_OVER_LPR_CAP, "warning", message, CC_680, (span,))]
    return []
