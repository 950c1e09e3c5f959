"""民法典 checks for every contract: 违约金 (585), 定金 (586, 588), 格式条款 (496-498), void exclusions (506)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from rules.amounts import find_amounts
from rules.clauses.statutes.articles import CC_496, CC_497, CC_498, CC_506, CC_585, CC_586, CC_588, RiskFlag, flag
from rules.clauses.statutes.text import ContractText, Span
from rules.contract_terms.money import find_rates

PENALTY_FAR_ABOVE_LOSS = "penalty_far_above_loss"
DEPOSIT_OVER_LIMIT = "deposit_over_20_percent"
PENALTY_AND_DEPOSIT = "penalty_and_deposit"
FORMAT_TERM_WITHOUT_NOTICE = "format_term_without_notice"
FORMAT_TERM_EXCLUDES_RIGHTS = "format_term_excludes_rights"
INTERPRETATION_RESERVED = "interpretation_reserved"
VOID_EXCLUSION = "void_exclusion"

DEPOSIT_LIMIT_PERCENT = Decimal(20)
# 最高法 practice (民法典合同编通则解释第65条, formerly 合同法解释二第29条): a 违约金 more than 30 % above the loss is
# generally "过分高于". The loss is unknown from the text, so a stated share of the price above 30 %, or a daily
# rate worth more than 30 % a year, is pointed out for the legal team to weigh.
PENALTY_PRACTICE_PERCENT = Decimal(30)
DAYS_PER_YEAR = 365

_PENALTY = re.compile(r"违约金")
_DEPOSIT = re.compile(r"(?<!预)定金")
_EXCLUSION = re.compile(
    r"(?:(?<![不未])免除|(?<![不未])减轻|(?<![不未竞业])限制)[^。;,，]{0,8}责任|(?<!应)不(?:承担|负)(?:任何)?(?:法律|赔偿)?(?:责任|赔偿)"
    r"|概不(?:负责|承担|赔偿)|不负责(?:赔偿|任何)|不予赔偿|(?<!无)免责"
)
_FORCE_MAJEURE = re.compile(r"不可抗力|不可抗拒|无法抗拒")
_NOTICE = re.compile(
    r"加粗|黑体|粗体|下划线|特别提示|特别提醒|重点提示|提请[^。]{0,8}注意|已[^。]{0,8}(?:充分|仔细|认真)(?:阅读|理解)"
    r"|提示[^。]{0,6}(?:注意|阅读)"
)
_FORMAT = re.compile(r"格式条款|格式合同|格式文本|本合同(?:文本)?(?:条款)?由[^。]{0,10}(?:提供|拟定)|用户协议|平台规则")
_RIGHTS_EXCLUDED = re.compile(
    r"放弃[^。;,，]{0,12}(?:权利|追索|索赔|追究|主张|抗辩)|(?:乙方|对方|用户|买方|承租人|客户)[^。;]{0,6}无权"
    r"[^。;,，]{0,8}(?:要求|主张|解除|索赔|退|起诉|追究)|不得以任何理由[^。;,，]{0,8}(?:解除|拒绝|要求|主张|退)"
    r"|不得(?:向法院)?(?:起诉|提起诉讼|申请仲裁)"
)
_INTERPRETATION = re.compile(r"解释权[^。;,，]{0,6}(?:归|属于|由)|享有[^。;,，]{0,6}解释权")
_HARM = re.compile(r"人身(?:伤害|损害|伤亡)|伤亡|受伤|死亡|身体[^。]{0,4}损害|意外伤害")
_GROSS_FAULT = re.compile(r"故意|重大过失")
_CARVE_OUT = re.compile(r"除外|但[^。]{0,20}(?:故意|重大过失|人身)|非[^。,，]{0,30}故意")
# Broad words that make an exclusion worth pointing out in a contract that does not call itself a form.
_SWEEPING = re.compile(r"任何|一切|概不|全部")
# Deemed waiver after a deadline and non-waiver clauses are ordinary terms, not a taking of rights.
_NOT_TAKING = re.compile(
    r"(?:不|未)[^。,，]{0,4}(?:视为|作为|构成|意味着)[^。,，]{0,4}放弃|视(?:其)?为[^。]{0,40}放弃|不放弃"
)


@dataclass(frozen=True)
class Share:
    """A stated share of the price (or, daily, of the late sum per day) in percent, its words and evidence."""

    percent: Decimal
    words: str
    daily: bool
    evidence: tuple[Span, ...]

    @property
    def yearly(self) -> Decimal:
        """The share over a year: a daily rate times 365, a one-off share as it is."""
        return self.percent * DAYS_PER_YEAR if self.daily else self.percent


def penalty_shares(contract: ContractText) -> list[Share]:
    """Every 违约金 stated as a share (one-off or per day) or as an amount of the contract total."""
    total = contract.contract_total()
    shares: list[Share] = []
    for span, sentence in contract.sentences(_PENALTY):
        if _DEPOSIT.search(sentence):
            continue
        for rate in find_rates(sentence):
            words = sentence[rate.start : rate.end]
            shares.append(Share(rate.value.fraction * 100, words, rate.value.period == "day", (span,)))
            if rate.value.cap is not None:  # 最高不超过合同总价的30%: a share the contract allows
                shares.append(Share(rate.value.cap * 100, words, False, (span,)))
        if total and total[0] > 0:
            for amount in find_amounts(sentence):
                shares.append(Share(amount.value * 100 / total[0], amount.raw, False, (span, total[1])))
    return shares


def penalty_far_above_loss(contract: ContractText) -> list[RiskFlag]:
    """违约金 stated as a share of the price above 30 %, as an amount above 30 % of the total, or as a daily rate
    worth more than 30 % a year (民法典第585条: may be reduced on request)."""
    for share in penalty_shares(contract):
        if share.yearly > PENALTY_PRACTICE_PERCENT:
            if share.daily:
                worth = f"按日{share.words}计，折合每年约{share.yearly:.0f}%"
            elif len(share.evidence) > 1:
                worth = f"{share.words}，约为合同总额的{share.percent:.0f}%"
            else:
                worth = f"为{share.words}"
            message = f"违约金{worth}，超过司法实践中“高于损失30%”的一般标准，违约方可请求法院或仲裁机构适当减少"
            return [flag(PENALTY_FAR_ABOVE_LOSS, "note", message, CC_585, share.evidence)]
    return []


def deposit_shares(contract: ContractText) -> list[Share]:
    """Every stipulated 定金 as a share of the contract total, stated as a share or as an amount."""
    deposits = contract.stipulated("定金")
    total = contract.contract_total()
    shares: list[Share] = []
    for (start, end), sentence in contract.sentences(_DEPOSIT):
        if not any(f.start <= start < f.end or start <= f.match_start < end for f in deposits):
            continue
        # Only the words around 定金 count: 先付房款40%（其中10%为定金） is a 10 % deposit.
        near = "，".join(part for part in re.split(r"[,，]", sentence) if _DEPOSIT.search(part))
        for rate in find_rates(near):
            shares.append(Share(rate.value.fraction * 100, near[rate.start : rate.end], False, ((start, end),)))
        if total and total[0] > 0:
            for amount in find_amounts(near):
                shares.append(Share(amount.value * 100 / total[0], amount.raw, False, ((start, end), total[1])))
    return shares


def deposit_over_limit(contract: ContractText) -> list[RiskFlag]:
    """A 定金 above 20 % of the contract total, stated as a share or as an amount (民法典第586条)."""
    over = [share for share in deposit_shares(contract) if share.percent > DEPOSIT_LIMIT_PERCENT]
    if not over:
        return []
    worst = max(over, key=lambda share: share.percent)
    message = f"定金约为合同标的额的{worst.percent:.1f}%，超过20%的部分不产生定金效力"
    return [flag(DEPOSIT_OVER_LIMIT, "warning", message, CC_586, worst.evidence)]


def penalty_and_deposit(contract: ContractText) -> list[RiskFlag]:
    """Both 定金 and 违约金 stipulated: the other party may choose only one of them (民法典第587-588条)."""
    deposits = contract.stipulated("定金")
    penalties = [f for f in contract.stipulated("违约金/违约责任") if "违约金" in f.matched]
    if not (deposits and penalties):
        return []
    message = "合同同时约定违约金和定金，一方违约时对方只能选择适用其一"
    evidence = ((penalties[0].match_start, penalties[0].match_end), (deposits[0].match_start, deposits[0].match_end))
    return [flag(PENALTY_AND_DEPOSIT, "note", message, CC_588, evidence)]


def _exclusions(contract: ContractText) -> list[tuple[tuple[int, int], str]]:
    """Sentences that exclude or limit a party's liability (force majeure, a statutory excuse, left out)."""
    return [(span, s) for span, s in contract.sentences(_EXCLUSION) if not _FORCE_MAJEURE.search(s)]


def _format_severity(contract: ContractText) -> str:
    """A contract that calls itself a standard form is held to 496-498 for certain; others may be one."""
    return "warning" if _FORMAT.search(contract.folded) else "note"


def format_terms(contract: ContractText) -> list[RiskFlag]:
    """格式条款: an exclusion with no notice wording anywhere (496), a term taking away the other party's main
    rights (497), the drafter's reserved interpretation (498)."""
    severity = _format_severity(contract)
    flags: list[RiskFlag] = []
    exclusions = [(span, s) for span, s in _exclusions(contract) if severity == "warning" or _SWEEPING.search(s)]
    if exclusions and not _NOTICE.search(contract.folded):
        message = "免除或减轻责任的条款未见加粗、特别提示等提示方式；若为格式条款，对方可主张该条款不成为合同内容"
        evidence = tuple(span for span, _ in exclusions[:3])
        flags.append(flag(FORMAT_TERM_WITHOUT_NOTICE, severity, message, CC_496, evidence))
    excluded = [(span, s) for span, s in contract.sentences(_RIGHTS_EXCLUDED) if not _NOT_TAKING.search(s)]
    if excluded:
        message = "条款限制或排除对方的主要权利（放弃权利、无权解除或索赔等）；若为格式条款，该条款无效"
        flags.append(flag(FORMAT_TERM_EXCLUDES_RIGHTS, severity, message, CC_497, tuple(s for s, _ in excluded[:3])))
    reserved = list(contract.sentences(_INTERPRETATION))
    if reserved:
        message = "合同约定解释权归一方；对格式条款理解有争议时应作不利于提供方的解释，此类约定不能排除"
        flags.append(flag(INTERPRETATION_RESERVED, "warning", message, CC_498, tuple(s for s, _ in reserved[:3])))
    return flags


def void_exclusions(contract: ContractText) -> list[RiskFlag]:
    """An exclusion of liability for personal injury, or for loss caused deliberately or by gross fault (506)."""
    void = [
        (span, sentence)
        for span, sentence in _exclusions(contract)
        if (_HARM.search(sentence) or _GROSS_FAULT.search(sentence)) and not _CARVE_OUT.search(sentence)
    ]
    if not void:
        return []
    harm = any(_HARM.search(sentence) for _, sentence in void)
    what = "人身损害" if harm else "故意或重大过失造成的财产损失"
    message = f"条款免除{what}的责任，该免责条款无效"
    return [flag(VOID_EXCLUSION, "warning", message, CC_506, tuple(span for span, _ in void[:3]))]
