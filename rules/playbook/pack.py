"""A contract playbook as data: the default pack (`rules/packs/playbook_default.json`) or an organisation's own
version of it, parsed into frozen rules that `rules.playbook.review` grades a contract against."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from rules.clauses.statutes.contract_type import CONTRACT_TYPES

PACK_PATH = Path(__file__).resolve().parents[1] / "packs" / "playbook_default.json"

ACCEPTABLE, NEGOTIATE, ESCALATE = "acceptable", "negotiate", "escalate"
GRADES = (ACCEPTABLE, NEGOTIATE, ESCALATE)
REQUIRED_CLAUSE, LIMIT, FORUM_CITY = "required_clause", "limit", "forum_city"
DEPOSIT_CAP, NON_COMPETE_COMPENSATION, PREFERRED_WORDING = (
    "deposit_cap",
    "non_compete_compensation",
    "preferred_wording",
)
RULE_KINDS = (REQUIRED_CLAUSE, LIMIT, FORUM_CITY, DEPOSIT_CAP, NON_COMPETE_COMPENSATION, PREFERRED_WORDING)
PENALTY_PERCENT, PAYMENT_DAYS = "penalty_percent_of_price", "payment_days"
MEASURES = (PENALTY_PERCENT, PAYMENT_DAYS)
EVERY_TYPE = "*"


class PlaybookError(ValueError):
    """A playbook that cannot be read: which rule (or setting) and why."""


@dataclass(frozen=True)
class PlaybookRule:
    """One policy point: its kind, the contract types it binds, the grade when broken, and its parameters."""

    rule_id: str
    kind: str
    title: str
    contract_types: tuple[str, ...]
    grade: str
    clauses: tuple[str, ...] = ()
    measure: str = ""
    maximum: Decimal | None = None
    escalate_over: Decimal | None = None
    clause: str = ""
    prefer_any: tuple[str, ...] = ()
    avoid_any: tuple[str, ...] = ()
    suggestion: str = ""

    def binds(self, contract_type: str) -> bool:
        """Whether the rule applies to a contract of this type."""
        return EVERY_TYPE in self.contract_types or contract_type in self.contract_types


@dataclass(frozen=True)
class Playbook:
    """A playbook: where it comes from (pack id and version, or an organisation's version), settings and rules."""

    pack: str
    version: str
    city: str
    minimum_wage: Decimal | None
    rules: tuple[PlaybookRule, ...]


def _decimal(value: Any, where: str) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise PlaybookError(f"{where}: not a number: {value!r}") from None
    if number < 0:
        raise PlaybookError(f"{where}: must not be negative")
    return number


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise PlaybookError(f"{where}: a list of words is needed")
    return tuple(item.strip() for item in value)


def rule_from_data(data: Mapping[str, Any]) -> PlaybookRule:
    """One rule from its JSON form, checked: a known kind, grade, contract types and the parameters it needs."""
    rule_id = str(data.get("id") or "").strip()
    if not rule_id:
        raise PlaybookError("a rule needs an id")
    kind, grade = data.get("kind"), data.get("grade", NEGOTIATE)
    if kind not in RULE_KINDS:
        raise PlaybookError(f"{rule_id}: unknown kind {kind!r} (one of {', '.join(RULE_KINDS)})")
    if grade not in (NEGOTIATE, ESCALATE):
        raise PlaybookError(f"{rule_id}: a broken rule grades negotiate or escalate, not {grade!r}")
    types = _strings(data.get("contract_types", [EVERY_TYPE]), f"{rule_id}.contract_types")
    unknown = [t for t in types if t != EVERY_TYPE and t not in CONTRACT_TYPES]
    if unknown or not types:
        raise PlaybookError(f"{rule_id}: contract types are {', '.join(CONTRACT_TYPES)} or {EVERY_TYPE}")
    rule = PlaybookRule(
        rule_id=rule_id,
        kind=kind,
        title=str(data.get("title") or rule_id),
        contract_types=types,
        grade=grade,
        clauses=_strings(data.get("clauses"), f"{rule_id}.clauses"),
        measure=str(data.get("measure") or ""),
        maximum=_decimal(data.get("maximum"), f"{rule_id}.maximum"),
        escalate_over=_decimal(data.get("escalate_over"), f"{rule_id}.escalate_over"),
        clause=str(data.get("clause") or ""),
        prefer_any=_strings(data.get("prefer_any"), f"{rule_id}.prefer_any"),
        avoid_any=_strings(data.get("avoid_any"), f"{rule_id}.avoid_any"),
        suggestion=str(data.get("suggestion") or ""),
    )
    _check_parameters(rule)
    return rule


def _check_parameters(rule: PlaybookRule) -> None:
    """Refuse a rule that lacks what its kind reads."""
    if rule.kind == REQUIRED_CLAUSE and not rule.clauses:
        raise PlaybookError(f"{rule.rule_id}: name the clause types that are required")
    if rule.kind == LIMIT and (rule.measure not in MEASURES or rule.maximum is None):
        raise PlaybookError(f"{rule.rule_id}: a limit needs a measure ({', '.join(MEASURES)}) and a maximum")
    if rule.kind == DEPOSIT_CAP and rule.maximum is None:
        raise PlaybookError(f"{rule.rule_id}: a deposit cap needs a maximum share")
    if rule.kind == PREFERRED_WORDING and not (rule.prefer_any or rule.avoid_any):
        raise PlaybookError(f"{rule.rule_id}: give words to prefer or to avoid")
    if rule.escalate_over is not None and rule.maximum is not None and rule.escalate_over < rule.maximum:
        raise PlaybookError(f"{rule.rule_id}: escalate_over must not be below the maximum")


def rules_from_data(rules: Any) -> tuple[PlaybookRule, ...]:
    """A playbook's rule list, checked: each rule well formed, ids unique."""
    if not isinstance(rules, list):
        raise PlaybookError("the rules are a list")
    parsed = tuple(rule_from_data(rule if isinstance(rule, Mapping) else {}) for rule in rules)
    ids = [rule.rule_id for rule in parsed]
    duplicates = sorted({rule_id for rule_id in ids if ids.count(rule_id) > 1})
    if duplicates:
        raise PlaybookError(f"rule ids must be unique: {', '.join(duplicates)}")
    return parsed


def playbook_from_data(rules: Any, *, pack: str, version: str, city: str = "", minimum_wage: Any = None) -> Playbook:
    """A playbook from its parts (an organisation's stored version, or the default pack)."""
    wage = _decimal(minimum_wage, "minimum_wage")
    return Playbook(pack, version, city.strip(), wage, rules_from_data(rules))


def default_rules_data(path: Path = PACK_PATH) -> list[dict[str, Any]]:
    """The default pack's rules as JSON, for an organisation to start its own playbook from."""
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["rules"]
    return data


@lru_cache(maxsize=2)
def load_default_playbook(path: Path = PACK_PATH) -> Playbook:
    """DocGate's default playbook (pack id and version, its settings)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    settings = data.get("settings", {})
    return playbook_from_data(
        data["rules"],
        pack=data["pack"],
        version=data["version"],
        city=settings.get("city") or "",
        minimum_wage=settings.get("minimum_wage"),
    )
