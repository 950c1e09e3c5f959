"""Deterministic statutory risk checks over clause findings (民法典 586/588, 劳动合同法 24)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from rules.amounts import find_amounts, find_percentages, parse_number
from rules.clauses.matcher import STIPULATED, ClauseFinding, clause_matches
from rules.clauses.structure import fold

DEPOSIT_OVER_LIMIT = "deposit_over_20_percent"
PENALTY_AND_DEPOSIT = "penalty_and_deposit"
NON_COMPETE_TOO_LONG = "non_compete_over_2_years"

DEPOSIT_LIMIT_PERCENT = Decimal(20)
NON_COMPETE_LIMIT_MONTHS = 24

_TOTAL_CUE = re.compile(r"合同总价|合同总额|合同金额|合同价款|总价款|总金额|标的额|标的总额|总价|总额|合计|总计")
_DEPOSIT_CUE = re.compile(r"(?<!预)定金")
_DURATION = re.compile(r"(?P<number>\d+(?:\.\d+)?|[一二两三四五六七八九十]+)\s*(?:个)?(?P<unit>年|月)")
_SENTENCE = re.compile(r"[^。;!?\n]+")


@dataclass(frozen=True)
class RiskFlag:
    """A statutory risk: code, severity (warning|note), message, legal basis and evidence spans."""

    code: str
    severity: str
    message: str
    basis: str
    evidence: tuple[tuple[int, int], ...]


def _sentences(folded: str, cue: re.Pattern[str]) -> list[tuple[int, int]]:
    """Return (start, end) of every sentence of folded text that contains cue."""
    return [(m.start(), m.end()) for m in _SENTENCE.finditer(folded) if cue.search(m.group())]


def _contract_total(folded: str) -> tuple[Decimal, tuple[int, int]] | None:
    """Return the largest amount stated in a sentence naming the contract total, with that sentence."""
    best: tuple[Decimal, tuple[int, int]] | None = None
    for start, end in _sentences(folded, _TOTAL_CUE):
        for amount in find_amounts(folded[start:end]):
            if best is None or amount.value > best[0]:
                best = (amount.value, (start, end))
    return best


def _deposit_over_limit(folded: str, deposits: list[ClauseFinding]) -> RiskFlag | None:
    """Flag a 定金 above 20% of the contract total, stated as a share or as an amount (民法典第586条)."""
    total = _contract_total(folded)
    for start, end in _sentences(folded, _DEPOSIT_CUE):
        if not any(f.start <= start < f.end or start <= f.match_start < end for f in deposits):
            continue
        sentence = folded[start:end]
        shares = [p.value for p in find_percentages(sentence)]
        amounts = [a.value for a in find_amounts(sentence)]
        over = [share for share in shares if share > DEPOSIT_LIMIT_PERCENT]
        if total and total[0] > 0:
            over += [amount * 100 / total[0] for amount in amounts if amount * 100 > total[0] * DEPOSIT_LIMIT_PERCENT]
        if over:
            evidence = ((start, end),) + ((total[1],) if total and not shares else ())
            return RiskFlag(
                code=DEPOSIT_OVER_LIMIT,
                severity="warning",
                message=f"定金约为合同标的额的{max(over):.1f}%，超过20%的部分不产生定金效力",
                basis="民法典第586条",
                evidence=evidence,
            )
    return None


def _months(number: str, unit: str) -> Decimal | None:
    """Return a duration in months from a numeral and 年/月."""
    value = parse_number(number)
    if value is None:
        return None
    return value * 12 if unit == "年" else value


def _non_compete_too_long(folded: str, covenants: list[ClauseFinding]) -> RiskFlag | None:
    """Flag a 竞业限制 period longer than two years (劳动合同法第24条)."""
    for finding in covenants:
        sentence_start = folded.rfind("。", 0, finding.match_start) + 1
        sentence_end = folded.find("。", finding.match_end)
        sentence_end = len(folded) if sentence_end < 0 else sentence_end
        for match in _DURATION.finditer(folded, sentence_start, sentence_end):
            months = _months(match["number"], match["unit"])
            if months is not None and months > NON_COMPETE_LIMIT_MONTHS:
                return RiskFlag(
                    code=NON_COMPETE_TOO_LONG,
                    severity="warning",
                    message=f"竞业限制期限为{match.group()}，超过法定最长两年",
                    basis="劳动合同法第24条",
                    evidence=((sentence_start, sentence_end),),
                )
    return None


def risk_checks(text: str, findings: list[ClauseFinding] | None = None) -> list[RiskFlag]:
    """Return the statutory risk flags for a contract text, reusing clause findings when given."""
    if findings is None:
        findings = clause_matches(text)
    folded = fold(text)
    stipulated = [f for f in findings if f.status == STIPULATED]
    deposits = [f for f in stipulated if f.label == "定金"]
    penalties = [f for f in stipulated if f.label == "违约金/违约责任" and "违约金" in f.matched]
    covenants = [f for f in stipulated if f.label == "竞业限制"]
    flags: list[RiskFlag] = []
    if deposits:
        over = _deposit_over_limit(folded, deposits)
        if over:
            flags.append(over)
    if deposits and penalties:
        flags.append(
            RiskFlag(
                code=PENALTY_AND_DEPOSIT,
                severity="note",
                message="合同同时约定违约金和定金，一方违约时对方只能选择适用其一",
                basis="民法典第588条",
                evidence=(
                    (penalties[0].match_start, penalties[0].match_end),
                    (deposits[0].match_start, deposits[0].match_end),
                ),
            )
        )
    if covenants:
        too_long = _non_compete_too_long(folded, covenants)
        if too_long:
            flags.append(too_long)
    return flags
