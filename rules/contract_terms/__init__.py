"""Key terms of a contract as normalised values: parties, dates, term, price, payment, 定金, 违约金, forum …"""

from __future__ import annotations

from rules.contract_terms.blanks import blank_values, find_blanks, is_blank
from rules.contract_terms.dates import find_dates, parse_date
from rules.contract_terms.durations import find_durations, parse_duration
from rules.contract_terms.extract import key_terms
from rules.contract_terms.model import (
    AGREED,
    BLANK,
    TERMS_PACK,
    Deposit,
    Duration,
    Forum,
    KeyTerm,
    Money,
    Party,
    PaymentStep,
    Rate,
    Renewal,
    value_json,
)
from rules.contract_terms.money import find_money, find_rates, parse_rate, tax_status
from rules.contract_terms.parties import find_parties

__all__ = [
    "AGREED",
    "BLANK",
    "TERMS_PACK",
    "Deposit",
    "Duration",
    "Forum",
    "KeyTerm",
    "Money",
    "Party",
    "PaymentStep",
    "Rate",
    "Renewal",
    "blank_values",
    "find_blanks",
    "find_dates",
    "find_durations",
    "find_money",
    "find_parties",
    "find_rates",
    "is_blank",
    "key_terms",
    "parse_date",
    "parse_duration",
    "parse_rate",
    "tax_status",
    "value_json",
]
