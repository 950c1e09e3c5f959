"""How long a contract gives to pay: the periods of its payment sentences in calendar days (30日内, 五个工作日内,
账期60天, 两个月内). (To be unified with the payment schedule of `rules.contract_terms`.)"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from rules.amounts import parse_number
from rules.clauses.statutes.text import ContractText, Span

_PAYMENT = re.compile(r"付款|支付|付清|结清|结算|汇入|汇至|账期")
# Penalties, warranty retention and the late-payment thresholds of a termination right are not terms to pay.
_NOT_PAYMENT = re.compile(r"违约金|质保|保修|滞纳金")
_NUM = r"\d+|[零〇一二两三四五六七八九十百]+"
_PERIOD = re.compile(rf"(?P<number>{_NUM}) ?(?P<unit>个工作日|工作日|个月|天|日|周)(?P<within>内|以内|之内)?")
_BEFORE_DEADLINE = re.compile(r"账期|付款期")
# The period must govern the paying: 三十日内支付 / 60日内，付清, not 60天内处理产品 in a sentence that pays elsewhere.
_PAID_AFTER = re.compile(r"^[^。;]{0,10}?(?:付|支付|付清|结清|偿还|汇入|汇至|缴清|缴纳)")
_OVERDUE = re.compile(r"逾期|超过|迟延|延迟|超期|提前")
_DAYS = {"个工作日": Decimal("1.4"), "工作日": Decimal("1.4"), "个月": Decimal(30), "周": Decimal(7)}
_DAYS |= {"天": Decimal(1), "日": Decimal(1)}


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
        for match in _PERIOD.finditer(sentence):
            before = sentence[max(0, match.start() - 6) : match.start()]
            if match.start() > 0 and sentence[match.start() - 1] in "月-./":
                continue  # 3月1日 is a date
            if _OVERDUE.search(before):
                continue
            deadline = _BEFORE_DEADLINE.search(before) or sentence[match.end() :].startswith("账期")
            if not (deadline or (match["within"] and _PAID_AFTER.search(sentence[match.end() :]))):
                continue
            number = parse_number(match["number"])
            if number is None or number <= 0:
                continue
            terms.append(PaymentTerm(match.group(), number * _DAYS[match["unit"]], span))
    return terms
