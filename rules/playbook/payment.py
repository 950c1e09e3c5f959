"""How long a contract gives to pay: the periods of its payment sentences in calendar days (30日内, 五个工作日内,
账期60天, 两个月内), read by `rules.contract_terms`' duration parser.

The key terms keep one instalment per sentence; a playbook limit needs every period a payment sentence allows, in
days, so the selection below stays here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from rules.clauses.statutes.text import ContractText, Span
from rules.contract_terms.durations import find_durations

_PAYMENT = re.compile(r"付款|支付|付清|结清|结算|汇入|汇至|账期")
# Penalties, warranty retention and the late-payment thresholds of a termination right are not terms to pay.
_NOT_PAYMENT = re.compile(r"违约金|质保|保修|滞纳金")
_WITHIN = re.compile(r"以内|之内|内")
_BEFORE_DEADLINE = re.compile(r"账期|付款期")
# The period must govern the paying: 三十日内支付 / 60日内，付清, not 60天内处理产品 in a sentence that pays elsewhere.
_PAID_AFTER = re.compile(r"^[^。;]{0,10}?(?:付|支付|付清|结清|偿还|汇入|汇至|缴清|缴纳)")
_OVERDUE = re.compile(r"逾期|超过|迟延|延迟|超期|提前")
# Calendar days per unit of a `Duration` (years and hours are no time to pay).
_DAYS = {"workday": Decimal("1.4"), "month": Decimal(30), "week": Decimal(7), "day": Decimal(1)}


@dataclass(frozen=True)
class PaymentTerm:
    """A time allowed to pay: its words, its length in calendar days (a working day counts 7/5) and its sentence."""

    words: str
    days: Decimal
    span: Span


def payment_terms(contract: ContractText) -> list[PaymentTerm]:
    """Every period a payment sentence allows to pay (`30日内支付`, `账期60天`), not late-payment thresholds."""
    terms: list[PaymentTerm] = []
    for span, sentence in contract.sentences(_PAYMENT):
        if _NOT_PAYMENT.search(sentence):
            continue
        for period in find_durations(sentence):
            if period.value.unit not in _DAYS:
                continue
            before = sentence[max(0, period.start - 6) : period.start]
            if period.start > 0 and sentence[period.start - 1] in "-/":
                continue  # 2026-3-1日 is a date
            if _OVERDUE.search(before):
                continue
            within = _WITHIN.match(sentence, period.end)
            end = within.end() if within else period.end
            deadline = _BEFORE_DEADLINE.search(before) or sentence[end:].startswith("账期")
            if not (deadline or (within and _PAID_AFTER.search(sentence[end:]))):
                continue
            days = period.value.amount * _DAYS[period.value.unit]
            terms.append(PaymentTerm(sentence[period.start : end], days, span))
    return terms
