"""Key terms of money: price, payment schedule, 定金, 违约金 and late-payment interest."""

from __future__ import annotations

import re
from decimal import Decimal

from rules.contract_terms.durations import find_durations
from rules.contract_terms.model import Deposit, KeyTerm, Money, PaymentStep, Rate
from rules.contract_terms.money import find_money, find_rates
from rules.contract_terms.sentences import Sentence

_PRICE_RE = re.compile(
    r"总价|价款|合同金额|合同总额|总金额|总额|租金|服务费|报酬|费用为|费用共计|工资|承包价|造价|转让费|使用费|许可费|"
    r"单价|货款|价格为|价格是|金额为|金额共计|计人民币|合计"
)
_NOT_PRICE_RE = re.compile(r"定金|违约金|滞纳金|赔偿|罚款|利息|押金|保证金")
_PAY_RE = re.compile(r"支付|付款|付清|付至|结清|结算|交纳|缴纳|交付[^。；，]{0,6}款|汇入|转账")
_INSTALMENT_RE = re.compile(r"首期|首付|第[一二三四五六七八九十0-9]+期|预付|余款|尾款|进度款|分期|一次性")
_EVENT_RE = re.compile(r"签订|签署|生效|验收|交付|交货|到货|收到|发票|开工|竣工|入住|结算|完工|上线|审计|通知")
_DEPOSIT_RE = re.compile(r"定金")
_PENALTY_RE = re.compile(r"违约金")
_INTEREST_RE = re.compile(r"滞纳金|逾期利息|利息|资金占用费|罚息")


def price_terms(sentence: Sentence) -> list[KeyTerm]:
    """The price (amount, currency, tax included or not); 月租金为　　元 is a blank price."""
    text = sentence.text
    cue = _PRICE_RE.search(text)
    if cue is None or _NOT_PRICE_RE.search(text) or _INTEREST_RE.search(text):
        return []
    money = [m for m in find_money(text) if m[0] >= cue.start()]
    if money:
        start, end, value = money[0]
        span = (sentence.start + start, sentence.start + end)
        return [sentence.term("price", value, span, 0.85, "price.amount")]
    blank = sentence.blank_term("price", "price.blank", units="元") or sentence.slot_blank_term(
        "price", "price.blank_slot", cue.end()
    )
    return [blank] if blank else []


def payment_terms(sentence: Sentence) -> list[KeyTerm]:
    """One instalment per payment sentence: its share or amount and the days after an event it falls due."""
    text = sentence.text
    pay = _PAY_RE.search(text)
    if pay is None or _NOT_PRICE_RE.search(text) or _INTEREST_RE.search(text):
        return []
    due = next((d for d in find_durations(text) if re.match(r"\s*(?:内|以内|之内|前)", text[d.end :])), None)
    rates = [r for r in find_rates(text) if r.value.period is None]
    money = find_money(text)
    if due is None and not (_INSTALMENT_RE.search(text) and (rates or money)):
        return []
    event_match = _EVENT_RE.search(text, 0, due.start if due else len(text))
    share = rates[0].value.fraction if rates else None
    amount = money[0][2] if money else None
    step = PaymentStep(share, amount, due.value if due else None, event_match.group() if event_match else None)
    anchor = due or (rates[0] if rates else None)
    start, end = (anchor.start, anchor.end) if anchor else (money[0][0], money[0][1])
    span = (sentence.start + start, sentence.start + end)
    return [sentence.term("payment", step, span, 0.8, "payment.step")]


def _rate_or_money_terms(sentence: Sentence, kind: str, cue: re.Pattern[str]) -> list[KeyTerm]:
    text = sentence.text
    match = cue.search(text)
    if match is None:
        return []
    window_start = max(0, match.start() - 40)
    terms: list[KeyTerm] = []
    for rate in find_rates(text, window_start):
        span = (sentence.start + rate.start, sentence.start + rate.end)
        terms.append(sentence.term(kind, rate.value, span, 0.85, f"{kind}.rate"))
    if not terms:
        for start, end, value in find_money(text, window_start):
            span = (sentence.start + start, sentence.start + end)
            terms.append(sentence.term(kind, value, span, 0.8, f"{kind}.amount"))
    if not terms and (
        blank := sentence.blank_term(kind, f"{kind}.blank", units="元%％倍")
        or sentence.slot_blank_term(kind, f"{kind}.blank_slot", match.end())
    ):
        terms.append(blank)
    return terms


def deposit_terms(sentence: Sentence) -> list[KeyTerm]:
    """定金: an amount or a share of the price (its share is filled in by `with_deposit_shares`)."""
    terms = []
    for term in _rate_or_money_terms(sentence, "deposit", _DEPOSIT_RE):
        if isinstance(term.value, Money):
            value = Deposit(term.value, None, None)
        elif isinstance(term.value, Rate):
            share = term.value.fraction if term.value.base in (None, "price") else None
            value = Deposit(None, term.value, share)
        else:
            terms.append(term)
            continue
        terms.append(KeyTerm("deposit", value, term.start, term.end, term.quote, term.confidence, term.rule_id))
    return terms


def penalty_terms(sentence: Sentence) -> list[KeyTerm]:
    """违约金: a rate (of a base, per day, with its cap) or a fixed amount."""
    if _PENALTY_RE.search(sentence.text) is None:
        return []
    return _rate_or_money_terms(sentence, "penalty", _PENALTY_RE)


def interest_terms(sentence: Sentence) -> list[KeyTerm]:
    """Late-payment interest and 滞纳金 (a 违约金 sentence is a penalty)."""
    if _PENALTY_RE.search(sentence.text) or _DEPOSIT_RE.search(sentence.text):
        return []
    return [t for t in _rate_or_money_terms(sentence, "late_interest", _INTEREST_RE) if not isinstance(t.value, Money)]


def with_deposit_shares(terms: list[KeyTerm]) -> list[KeyTerm]:
    """Fill in each 定金 amount's share of the price where the contract states both in one currency."""
    price = next((t.value for t in terms if t.kind == "price" and isinstance(t.value, Money)), None)
    if price is None or price.amount <= 0:
        return terms
    out = []
    for term in terms:
        value = term.value
        if isinstance(value, Deposit) and value.amount is not None and value.amount.currency == price.currency:
            share = (value.amount.amount / price.amount).quantize(Decimal("0.0001"))
            value = Deposit(value.amount, value.rate, share)
            term = KeyTerm(term.kind, value, term.start, term.end, term.quote, term.confidence, term.rule_id)
        out.append(term)
    return out
