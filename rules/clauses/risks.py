"""Deterministic statutory risk checks over a contract and its clause findings, each by its contract type.

Every contract: 民法典 585 (违约金), 586 and 587-588 (定金), 496-498 (格式条款), 506 (void exclusions), and 劳动合同法
23-24 wherever a non-compete is stipulated; leases 705; loans 680; labour contracts 劳动合同法 19, 20 and 25.
"""

from __future__ import annotations

from decimal import Decimal

from rules.clauses.matcher import ClauseFinding, clause_matches
from rules.clauses.statutes import civil_code, labour, lease_and_loan
from rules.clauses.statutes.articles import RiskFlag
from rules.clauses.statutes.civil_code import DEPOSIT_OVER_LIMIT, PENALTY_AND_DEPOSIT
from rules.clauses.statutes.contract_type import LABOUR, LEASE, LOAN, contract_type
from rules.clauses.statutes.labour import NON_COMPETE_TOO_LONG
from rules.clauses.statutes.lease_and_loan import LoanPrimeRates
from rules.clauses.statutes.text import ContractText
from rules.clauses.structure import fold

__all__ = ["DEPOSIT_OVER_LIMIT", "NON_COMPETE_TOO_LONG", "PENALTY_AND_DEPOSIT", "RiskFlag", "risk_checks"]


def risk_checks(
    text: str,
    findings: list[ClauseFinding] | None = None,
    *,
    kind: str | None = None,
    minimum_wage: Decimal | None = None,
    lpr: LoanPrimeRates | None = None,
) -> list[RiskFlag]:
    """The statutory risk flags of a contract text, reusing clause findings when given; `kind` overrides the
    detected contract type, `minimum_wage` (monthly, yuan) is the local minimum for 劳动合同法第20条."""
    if findings is None:
        findings = clause_matches(text)
    kind = kind or contract_type(text).kind
    contract = ContractText(fold(text), tuple(findings), kind)
    flags = [
        *civil_code.deposit_over_limit(contract),
        *civil_code.penalty_and_deposit(contract),
        *civil_code.penalty_far_above_loss(contract),
        *civil_code.format_terms(contract),
        *civil_code.void_exclusions(contract),
        *labour.non_compete(contract),
    ]
    if kind == LEASE:
        flags += lease_and_loan.lease_over_20_years(contract)
    if kind == LOAN:
        flags += lease_and_loan.interest_over_lpr_cap(contract, lpr)
    if kind == LABOUR:
        flags += labour.probation_too_long(contract)
        flags += labour.probation_wage_too_low(contract, minimum_wage)
        flags += labour.employee_penalty(contract)
    return flags
