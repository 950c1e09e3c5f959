"""`key_terms`: every key term of a contract, normalised, in text order (parties first)."""

from __future__ import annotations

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

_DETECTORS: tuple[Callable[[Sentence], list[KeyTerm]], ...] = (
    date_terms,
    term_terms,
    notice_terms,
    labour_terms,
    price_terms,
    payment_terms,
    deposit_terms,
    penalty_terms,
    interest_terms,
    law_terms,
    forum_terms,
)


def key_terms(text: str) -> tuple[KeyTerm, ...]:
    """The parties, then every dated, timed, priced and legal key term of the contract, in text order."""
    text = half_width_digits(text)
    found: list[KeyTerm] = []
    for sentence in sentences(text):
        for detect in _DETECTORS:
            found.extend(detect(sentence))
    found.sort(key=lambda t: (t.start, t.end, t.kind))
    return (*find_parties(text), *with_deposit_shares(found))
