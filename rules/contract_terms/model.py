"""The key-term result types: normalised values (durations, money, rates, parties …) and the KeyTerm itself."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

TERMS_PACK = ("contract_terms", "2026.12.1")

AGREED = "agreed"
BLANK = "blank"  # the clause is there but its key value is an unfilled blank of a template

FoundValue = TypeVar("FoundValue")


@dataclass(frozen=True)
class Found(Generic[FoundValue]):
    """A value read from text with its span: what every value reader (dates, durations, rates) returns."""

    start: int
    end: int
    value: FoundValue


@dataclass(frozen=True)
class Duration:
    """A length of time: an amount and its unit (year, month, week, day, workday, hour)."""

    amount: Decimal
    unit: str

    def normalised(self) -> str:
        return f"{self.amount} {self.unit}"


@dataclass(frozen=True)
class Money:
    """An amount of money in an ISO currency; tax_included is None where the text does not say."""

    amount: Decimal
    currency: str
    tax_included: bool | None = None

    def normalised(self) -> str:
        return f"{self.currency} {self.amount}"


@dataclass(frozen=True)
class Rate:
    """A rate as a fraction (百分之二十 → 0.2), of a base (price, unpaid, …) per period (day, month, year)."""

    fraction: Decimal
    base: str | None = None
    period: str | None = None
    cap: Decimal | None = None  # the highest total, as a fraction of the same base

    def normalised(self) -> str:
        return f"{self.fraction}/{self.period}" if self.period else str(self.fraction)


@dataclass(frozen=True)
class PaymentStep:
    """One instalment: its share of the price or its amount, and when it falls due (days after an event)."""

    share: Decimal | None
    amount: Money | None
    due: Duration | None
    event: str | None

    def normalised(self) -> str:
        parts = [str(self.share) if self.share is not None else "", self.amount.normalised() if self.amount else ""]
        if self.due is not None:
            parts.append(f"{self.due.normalised()} after {self.event or '?'}")
        return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class Deposit:
    """定金: its amount or rate, and its share of the price where both are known."""

    amount: Money | None
    rate: Rate | None
    share_of_price: Decimal | None

    def normalised(self) -> str:
        if self.amount is not None:
            return self.amount.normalised()
        return self.rate.normalised() if self.rate is not None else ""


@dataclass(frozen=True)
class Renewal:
    """Renewal: whether it is automatic and the notice it needs."""

    automatic: bool
    notice: Duration | None

    def normalised(self) -> str:
        notice = f" notice {self.notice.normalised()}" if self.notice else ""
        return ("automatic" if self.automatic else "by agreement") + notice


@dataclass(frozen=True)
class Forum:
    """Where disputes go: a court or an arbitration body, as the contract names it."""

    kind: str  # court | arbitration
    name: str

    def normalised(self) -> str:
        return f"{self.kind}: {self.name}"


@dataclass(frozen=True)
class Party:
    """One party: its name (None when the contract leaves it blank), the role words it is defined as, and the
    credit code or ID number written for it."""

    name: str | None
    roles: tuple[str, ...]
    identifier: str | None = None
    is_person: bool = False

    def normalised(self) -> str:
        return f"{self.name or '＿'} ({'/'.join(self.roles)})"


TermValue = Duration | Money | Rate | PaymentStep | Deposit | Renewal | Forum | Party | str | None


@dataclass(frozen=True)
class KeyTerm:
    """One key term of a contract: its kind, normalised value, span of its evidence, confidence and status."""

    kind: str
    value: TermValue
    start: int
    end: int
    quote: str
    confidence: float
    rule_id: str
    status: str = AGREED

    def normalised(self) -> str:
        """The value as one comparable string (ISO date, '3 year', 'CNY 100000', '0.0005/day', …)."""
        if self.status == BLANK or self.value is None:
            return BLANK
        return self.value if isinstance(self.value, str) else self.value.normalised()


def value_json(value: TermValue) -> Any:
    """The value as JSON: Decimals as strings (exact), dataclasses as objects, nested values likewise."""
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    fields = {name: value_json(getattr(value, name)) for name in value.__dataclass_fields__}
    return {"type": type(value).__name__.lower(), **fields}
