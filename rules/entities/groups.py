"""Entity groups: every mention of one thing as one answer, parties resolved to the names they are defined as.

A labour contract says 甲方 two hundred times; a reader wants to know once that 甲方 is 某某科技有限公司, where
that is said, and where 甲方 is mentioned. So:

- a party definition (`甲方：某某科技有限公司`, `委托方（以下简称甲方）：…`) names a party; every role word written
  before the name in the same clause of that line (委托方, 甲方) becomes one of its roles, and every later mention
  of such a role is a mention of that party. The first definition of a role wins (a signature block repeating
  `甲方：某某科技有限公司` is the same party again);
- the role words a contract defines for one party (`rules.contract_terms.parties`: 委托方（以下简称甲方）：＿＿,
  出租方：(甲方), 甲　方 in its signature block) are one group even while its name is blank;
- a role never defined (a template's bare 甲方) is a party group of its own, keyed by the role;
- amounts, dates, durations, percentages and every other label group by their normalised value (`CNY 5000`,
  `2024-03-01`, `30 day`), so 伍仟元 and 5000元 are one amount; an entity without a value groups by its text.

Groups come in text order, parties first. Each keeps its mentions in text order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rules.contract_terms.model import Party
from rules.contract_terms.parties import find_parties
from rules.entities.expressions import PARTY_ROLES
from rules.entities.model import Entity

_ROLE_RE = re.compile("|".join(sorted(PARTY_ROLES, key=len, reverse=True)))
_CLAUSE_BREAK = re.compile(r"[\n。；;]")
NAMED_PARTY_RULE = "party.named"


@dataclass(frozen=True)
class EntityGroup:
    """One party, amount, date …: its label, normalised key, display text, value, roles and mentions."""

    label: str
    key: str
    text: str
    value: str | None
    mentions: tuple[Entity, ...]
    is_pii: bool
    roles: tuple[str, ...] = ()
    definition: Entity | None = None  # a party's defining mention (`甲方：某某公司`)

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """Every rule that found a mention of the group, sorted."""
        return tuple(sorted({mention.rule_id for mention in self.mentions}))


def _compact(text: str) -> str:
    return "".join(text.split())


def _defined_roles(text: str, definition: Entity, floor: int) -> list[str]:
    """The role words written before a defined name, back to the previous definition or clause break."""
    prefix_start = floor
    for match in _CLAUSE_BREAK.finditer(text, floor, definition.start):
        prefix_start = match.end()
    roles = _ROLE_RE.findall(text, prefix_start, definition.start)
    if definition.value and definition.value not in roles:
        roles.insert(0, definition.value)
    return list(dict.fromkeys(roles))


class _Builder:
    """Mentions collected per key, with the first text, value, roles and definition of each group."""

    def __init__(self) -> None:
        self.mentions: dict[tuple[str, str], list[Entity]] = {}
        self.first: dict[tuple[str, str], tuple[str, str | None]] = {}
        self.roles: dict[tuple[str, str], list[str]] = {}
        self.definition: dict[tuple[str, str], Entity] = {}

    def add(self, key: tuple[str, str], entity: Entity, text: str, value: str | None) -> None:
        self.mentions.setdefault(key, []).append(entity)
        self.first.setdefault(key, (text, value))

    def groups(self) -> list[EntityGroup]:
        built = []
        for key, mentions in self.mentions.items():
            mentions.sort(key=lambda e: (e.start, e.end))
            text, value = self.first[key]
            built.append(
                EntityGroup(
                    label=key[0],
                    key=key[1],
                    text=text,
                    value=value,
                    mentions=tuple(mentions),
                    is_pii=any(m.is_pii for m in mentions),
                    roles=tuple(self.roles.get(key, ())),
                    definition=self.definition.get(key),
                )
            )
        return sorted(built, key=lambda g: (g.label != "PARTY", g.mentions[0].start))


def _party_definitions(text: str, entities: list[Entity], builder: _Builder) -> dict[str, tuple[str, str]]:
    """Register every defined party; return which party group each role refers to (first definition wins)."""
    role_of: dict[str, tuple[str, str]] = {}
    floor = 0
    for entity in entities:
        if entity.label != "PARTY" or entity.rule_id != NAMED_PARTY_RULE:
            continue
        key = ("PARTY", _compact(entity.text))
        builder.add(key, entity, entity.text, entity.text)
        builder.definition.setdefault(key, entity)
        roles = builder.roles.setdefault(key, [])
        for role in _defined_roles(text, entity, floor):
            role_of.setdefault(role, key)
            if role not in roles:
                roles.append(role)
        floor = entity.end
    return role_of


def _link_defined_roles(text: str, role_of: dict[str, tuple[str, str]], builder: _Builder) -> None:
    """Join the role words a contract defines for one party (委托方（以下简称甲方）：＿＿, 出租方：(甲方), 甲　方 and
    its signature block) into one group, named or not."""
    for term in find_parties(text):
        party = term.value
        if not isinstance(party, Party) or term.rule_id != "party.defined":
            continue
        key = next((role_of[role] for role in party.roles if role in role_of), ("PARTY", party.roles[0]))
        roles = builder.roles.setdefault(key, [])
        for role in party.roles:
            role_of.setdefault(role, key)
            if role not in roles:
                roles.append(role)


def entity_groups(text: str, entities: Iterable[Entity]) -> list[EntityGroup]:
    """Group the resolved entities of text (see the module docstring)."""
    ordered = sorted(entities, key=lambda e: (e.start, e.end))
    builder = _Builder()
    role_of = _party_definitions(text, ordered, builder)
    _link_defined_roles(text, role_of, builder)
    for entity in ordered:
        if entity.label == "PARTY":
            if entity.rule_id == NAMED_PARTY_RULE:
                continue  # registered with its definition
            role = _compact(entity.text)
            key = role_of.get(role)
            if key is None:
                key = ("PARTY", role)
                builder.roles.setdefault(key, [role])
            builder.add(key, entity, role, None)
            continue
        value = entity.value
        key = (entity.label, value if value is not None else _compact(entity.text))
        builder.add(key, entity, entity.text, value)
    return builder.groups()
