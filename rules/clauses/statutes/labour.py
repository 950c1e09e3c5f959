"""劳动合同法 checks: probation length by term (19), probation wage (20), non-compete pay and length (23-24),
违约金 charged to the employee (25)."""

from __future__ import annotations

import re
from decimal import Decimal

from rules.amounts import find_amounts, find_percentages
from rules.clauses.statutes.articles import LCL_19, LCL_20, LCL_23, LCL_24, LCL_25, RiskFlag, flag
from rules.clauses.statutes.durations import find_periods, is_open_ended, term_months
from rules.clauses.statutes.text import ContractText

PROBATION_TOO_LONG = "probation_too_long"
PROBATION_WAGE_TOO_LOW = "probation_wage_too_low"
NON_COMPETE_TOO_LONG = "non_compete_over_2_years"
NON_COMPETE_UNPAID = "non_compete_without_compensation"
EMPLOYEE_PENALTY = "employee_penalty_not_allowed"

NON_COMPETE_LIMIT_MONTHS = 24
PROBATION_WAGE_PERCENT = Decimal(80)

_TERM = re.compile(r"(?:劳动)?合同期限|期限为|无固定期限|以完成一定工作任务为期限")
_TASK_TERM = re.compile(r"以完成一定工作任务为期限")
_PROBATION = re.compile(r"试用期")
_WAGE = re.compile(r"工资|薪资|薪酬|月薪|报酬|待遇")
_REGULAR = re.compile(r"转正|正式|试用期满|试用期后|约定工资")
_NON_COMPETE = re.compile(r"竞业")
_PAID = re.compile(r"经济补偿|补偿金|补偿费|补贴|津贴")
_UNPAID = re.compile(
    r"(?:不|无需|无须|不再|不另)(?:行|予)?(?:支付|给予|发放|另行支付)?[^。,，]{0,6}(?:补偿|补贴|津贴)"
    r"|(?:补偿|补贴)[^。]{0,10}(?:包含|已含|含)在[^。]{0,8}(?:工资|薪酬)"
)
_EMPLOYEE = r"(?:乙方|劳动者|员工|职工|受聘方)"
_EMPLOYEE_PAYS = re.compile(rf"{_EMPLOYEE}[^。;]*?(?:支付|承担|缴纳|赔偿|赔付)[^。;]{{0,16}}违约金")
_EMPLOYER_PAYS = re.compile(r"(?:甲方|用人单位|公司)[^。;]{0,20}向" + _EMPLOYEE)
_ALLOWED_PENALTY = re.compile(r"培训|服务期|竞业")


def _allowed_probation_months(term: Decimal | None, open_ended: bool) -> int:
    """The longest probation article 19 allows for a term (in months); an unknown term allows the six-month top."""
    if open_ended or term is None or term >= 36:
        return 6
    if term < 3:
        return 0
    return 1 if term < 12 else 2


def probation_too_long(contract: ContractText) -> list[RiskFlag]:
    """A probation longer than the contract term allows (劳动合同法第19条)."""
    term: Decimal | None = None
    open_ended = task_term = False
    term_span: tuple[int, int] | None = None
    for span, sentence in contract.sentences(_TERM):
        if _PROBATION.search(sentence) and not re.search(r"合同期限", sentence):
            continue
        open_ended = open_ended or is_open_ended(sentence)
        task_term = task_term or bool(_TASK_TERM.search(sentence))
        found = term_months(sentence.split("试用期")[0])
        if found and term is None:
            term, term_span = found[0], span
    allowed = 0 if task_term else _allowed_probation_months(term, open_ended)
    for (start, end), part in contract.parts(_PROBATION):
        periods = [p for p in find_periods(part) if p.start > part.find("试用期")]
        if not periods or periods[0].months <= allowed:
            continue
        if task_term:
            reason = "以完成一定工作任务为期限的合同不得约定试用期"
        elif allowed == 0:
            reason = "合同期限不满三个月的不得约定试用期"
        else:
            reason = f"按合同期限最长只能约定{allowed}个月"
        message = f"试用期为{periods[0].raw}，{reason}"
        evidence = ((start, end),) + ((term_span,) if term_span else ())
        return [flag(PROBATION_TOO_LONG, "warning", message, LCL_19, evidence)]
    return []


def probation_wage_too_low(contract: ContractText, minimum_wage: Decimal | None = None) -> list[RiskFlag]:
    """A probation wage under 80 % of the agreed wage or under the local minimum wage (劳动合同法第20条)."""
    agreed = [
        (amount.value, span)
        for span, part in contract.parts(_WAGE)
        if not _PROBATION.search(part) or _REGULAR.search(part)
        for amount in find_amounts(part)[:1]
    ]
    for span, part in contract.parts(_PROBATION):
        if not _WAGE.search(part) or (_REGULAR.search(part) and not part.startswith("试用期")):
            continue
        for share in find_percentages(part):
            if share.value < PROBATION_WAGE_PERCENT:
                message = f"试用期工资为约定工资的{share.raw}，低于百分之八十"
                return [flag(PROBATION_WAGE_TOO_LOW, "warning", message, LCL_20, (span,))]
        for amount in find_amounts(part)[:1]:
            if minimum_wage is not None and amount.value < minimum_wage:
                message = f"试用期工资{amount.raw}低于当地最低工资标准{minimum_wage}元"
                return [flag(PROBATION_WAGE_TOO_LOW, "warning", message, LCL_20, (span,))]
            if agreed:
                wage, wage_span = max(agreed)
                if amount.value * 100 < wage * PROBATION_WAGE_PERCENT:
                    message = f"试用期工资{amount.raw}不足约定工资{wage}元的百分之八十"
                    return [flag(PROBATION_WAGE_TOO_LOW, "warning", message, LCL_20, (span, wage_span))]
    return []


def _covenant_sentences(contract: ContractText) -> list[tuple[tuple[int, int], str]]:
    """The sentences of the stipulated non-compete articles."""
    covenants = contract.stipulated("竞业限制")
    return [
        (span, sentence)
        for span, sentence in contract.sentences(_NON_COMPETE)
        if any(f.start <= span[0] < f.end or span[0] <= f.match_start < span[1] for f in covenants)
    ]


def non_compete(contract: ContractText) -> list[RiskFlag]:
    """A non-compete longer than two years (第24条) or without monthly compensation (第23条)."""
    sentences = _covenant_sentences(contract)
    flags: list[RiskFlag] = []
    for span, sentence in sentences:
        too_long = [p for p in find_periods(sentence) if p.months > NON_COMPETE_LIMIT_MONTHS]
        if too_long:
            message = f"竞业限制期限为{too_long[0].raw}，超过法定最长两年"
            flags.append(flag(NON_COMPETE_TOO_LONG, "warning", message, LCL_24, (span,)))
            break
    covenant_text = "。".join(sentence for _, sentence in sentences)
    if sentences and (not _PAID.search(covenant_text) or _UNPAID.search(covenant_text)):
        message = "约定了竞业限制但未约定按月支付经济补偿，劳动者可不受该竞业限制约束"
        flags.append(flag(NON_COMPETE_UNPAID, "warning", message, LCL_23, (sentences[0][0],)))
    return flags


def employee_penalty(contract: ContractText) -> list[RiskFlag]:
    """A 违约金 charged to the employee for anything but a training service period or a non-compete (第25条)."""
    for span, sentence in contract.sentences(re.compile("违约金")):
        employee_pays = _EMPLOYEE_PAYS.search(sentence) and not _EMPLOYER_PAYS.search(sentence)
        if employee_pays and not _ALLOWED_PENALTY.search(sentence):
            message = "约定由劳动者承担违约金，但法律只允许就服务期和竞业限制约定劳动者违约金"
            return [flag(EMPLOYEE_PENALTY, "warning", message, LCL_25, (span,))]
    return []
