"""`key_terms`: every key term of a contract, normalised, in text order (parties first)."""

from __future__ import annotations

import re
from collections.abc import Callable

from rules.contract_terms.forum import forum_terms, law_terms
from rules.contract_terms.model import KeyTerm
from rules.contract_terms.money_terms import (
    deposit_terms,
    interest_terms,
    payment_terms,
    penalty_terms,
    price_terms,
    with_deposit_shares,
)
from rules.contract_terms.parties import find_parties
from rules.contract_terms.periods import date_terms, labour_terms, notice_terms, term_terms
from rules.contract_terms.sentences import Sentence, half_width_digits, sentences

# Each detector with the words without which it finds nothing: most sentences of a contract skip most detectors.
_DETECTORS: tuple[tuple[re.Pattern[str], Callable[[Sentence], list[KeyTerm]]], ...] = (
    (re.compile(r"年|[0-9][-/.][0-9]"), date_terms),
    (re.compile(r"期|之日起|续"), term_terms),
    (re.compile(r"提前"), notice_terms),
    (re.compile(r"试用期|竞业|同业竞争"), labour_terms),
    (re.compile(r"价|款|金|费|酬|额|工资|合计|人民币"), price_terms),
    (re.compile(r"付|结|缴|交纳|汇入|转账"), payment_terms),
    (re.compile(r"定金"), deposit_terms),
    (re.compile(r"违约金"), penalty_terms),
    (re.compile(r"滞纳金|利息|资金占用费|罚息"), interest_terms),
    (re.compile(r"法律"), law_terms),
    (re.compile(r"争议|纠纷|诉|仲裁|管辖"), forum_terms),
)


def key_terms(text: str) -> tuple[KeyTerm, ...]:
    """The parties, then every dated, timed, priced and legal key term of the contract, in text order."""
    text = half_width_digits(text)
    found: list[KeyTerm] = []
    for sentence in sentences(text):
        for cue, detect in _DETECTORS:
            if cue.search(sentence.text):
                found.extend(detect(sentence))
    found.sort(key=lambda t: (t.start, t.end, t.kind))
    return (*find_parties(text), *with_deposit_shares(found))
