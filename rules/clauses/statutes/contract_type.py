"""Which kind of contract a text is (lease, loan, labour, sale or general), from its title or its role words.

Statutes bind by contract type (民法典第705条 leases, 第680条 loans, 劳动合同法 labour contracts), so a check runs only
on the kinds it belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LEASE, LOAN, LABOUR, SALE, GENERAL = "lease", "loan", "labour", "sale", "general"
CONTRACT_TYPES = (LEASE, LOAN, LABOUR, SALE, GENERAL)

# Title words, most specific first: 劳务合同 is a service contract, not a labour contract (劳动合同法 does not apply).
_TITLES = (
    (GENERAL, re.compile(r"劳务(?:派遣)?(?:合同|协议)")),
    (LABOUR, re.compile(r"劳动合同|聘用合同|劳动协议")),
    (LEASE, re.compile(r"租赁(?:合同|协议)|租房(?:合同|协议)|租用(?:合同|协议)")),
    (LOAN, re.compile(r"借款(?:合同|协议)|借贷(?:合同|协议)|借条|借据")),
    (SALE, re.compile(r"买卖(?:合同|协议)|采购(?:合同|协议)|购销(?:合同|协议)|购货(?:合同|协议)")),
)
# Role words the parties are defined by; a kind needs two of its roles named to be read from them.
_ROLES = (
    (LABOUR, ("用人单位", "劳动者", "招聘方", "受聘方")),
    (LEASE, ("出租人", "承租人", "出租方", "承租方")),
    (LOAN, ("出借人", "借款人", "出借方", "借款方", "贷款人", "贷款方", "借款单位", "贷款单位")),
    (SALE, ("出卖人", "买受人", "供方", "需方", "卖方", "买方")),
)
_TITLE_REACH = 120  # the title sits in the first lines


@dataclass(frozen=True)
class ContractType:
    """A contract's kind with the words that decided it and where they are (no span for `general`)."""

    kind: str
    cue: str
    span: tuple[int, int] | None


def contract_type(text: str) -> ContractType:
    """The contract's kind: a title word in its first lines wins, else the kind with the most distinct role words."""
    head = text[:_TITLE_REACH]
    hits = [(match.start(), kind, match) for kind, pattern in _TITLES if (match := pattern.search(head))]
    if hits:
        _, kind, match = min(hits, key=lambda hit: hit[0])
        return ContractType(kind, match.group(), (match.start(), match.end()))
    best: tuple[int, str, str, int] | None = None
    for kind, roles in _ROLES:
        named = [(text.find(role), role) for role in roles if role in text]
        if len(named) >= 2 and (best is None or len(named) > best[0]):
            first = min(named)
            best = (len(named), kind, first[1], first[0])
    if best is None:
        return ContractType(GENERAL, "", None)
    _, kind, cue, start = best
    return ContractType(kind, cue, (start, start + len(cue)))
