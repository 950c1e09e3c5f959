"""Statutory checks on contracts, each citing its article: 民法典 and 劳动合同法, applied by contract type."""

from __future__ import annotations

from rules.clauses.statutes.articles import Article, RiskFlag
from rules.clauses.statutes.contract_type import CONTRACT_TYPES, ContractType, contract_type
from rules.clauses.statutes.lease_and_loan import LoanPrimeRates, load_lpr

__all__ = ["CONTRACT_TYPES", "Article", "ContractType", "LoanPrimeRates", "RiskFlag", "contract_type", "load_lpr"]
