"""Grade a contract against a playbook: per rule that binds its contract type, acceptable / negotiate / escalate,
with the evidence spans and the statute where one applies."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from rules.clauses.matcher import STIPULATED, ClauseFinding
from rules.clauses.statutes import civil_code, labour
from rules.clauses.statutes.articles import CC_585, CC_586, LCL_23, Article
from rules.clauses.statutes.contract_type import contract_type
from rules.clauses.statutes.text import ContractText, Span
from rules.clauses.structure import fold
from rules.playbook.pack import (
    ACCEPTABLE,
    DEPOSIT_CAP,
    ESCALATE,
    FORUM_CITY,
    LIMIT,
    NON_COMPETE_COMPENSATION,
    PAYMENT_DAYS,
    PREFERRED_WORDING,
    REQUIRED_CLAUSE,
    Playbook,
    PlaybookRule,
)
from rules.playbook.payment import payment_terms


@dataclass(frozen=True)
class PlaybookPoint:
    """One playbook rule's verdict on a contract: grade, why, evidence spans, the statute and wording to suggest."""

    rule_id: str
    kind: str
    title: str
    grade: str
    message: str
    evidence: tuple[Span, ...]
    article: Article | None = None
    suggestion: str = ""


_FORUM = re.compile(r"([^。;,，、：:（(]{0,16}?)(人民法院|法院|仲裁委员会|仲裁院|仲裁中心)")
_FORUM_SENTENCE = re.compile(r"管辖|诉讼|起诉|仲裁")


def _over(rule: PlaybookRule, value: Decimal) -> str:
    """The grade of a measured value against a rule's maximum and escalation line."""
    if rule.maximum is None or value <= rule.maximum:
        return ACCEPTABLE
    return ESCALATE if rule.escalate_over is not None and value > rule.escalate_over else rule.grade


def _point(
    rule: PlaybookRule, grade: str, message: str, evidence: Sequence[Span] = (), **extra: object
) -> PlaybookPoint:
    article = extra.get("article")
    return PlaybookPoint(
        rule.rule_id,
        rule.kind,
        rule.title,
        grade,
        message,
        tuple(evidence),
        article if isinstance(article, Article) else None,
        rule.suggestion if grade != ACCEPTABLE else "",
    )


def _required(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint:
    """Every required clause type stated (an unfilled template article counts as missing its terms)."""
    missing, blank, evidence = [], [], []
    for label in rule.clauses:
        found = [f for f in contract.clauses if f.label == label and f.status == STIPULATED]
        stated = [f for f in found if not f.slot]
        if stated:
            evidence.append((stated[0].start, stated[0].end))  # the article, as a clause finding's span
        elif found:
            blank.append(label)
            evidence.append((found[0].start, found[0].end))
        else:
            missing.append(label)
    if not (missing or blank):
        return _point(rule, ACCEPTABLE, f"已约定：{'、'.join(rule.clauses)}", evidence)
    parts = ([f"缺少：{'、'.join(missing)}"] if missing else []) + ([f"待填写：{'、'.join(blank)}"] if blank else [])
    return _point(rule, rule.grade, "；".join(parts), evidence)


def _limit(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint:
    """A measured term against the policy's maximum: the 违约金 share of the price, or days to pay."""
    if rule.measure == PAYMENT_DAYS:
        terms = payment_terms(contract)
        if not terms:
            return _point(rule, ACCEPTABLE, "未发现约定的付款期限")
        longest = max(terms, key=lambda term: term.days)
        grade = _over(rule, longest.days)
        verdict = f"在{rule.maximum}天以内" if grade == ACCEPTABLE else f"超过政策上限{rule.maximum}天"
        return _point(rule, grade, f"付款期限为{longest.words}（约{longest.days:.0f}天），{verdict}", (longest.span,))
    shares = [share for share in civil_code.penalty_shares(contract) if not share.daily]
    if not shares:
        return _point(rule, ACCEPTABLE, "未发现按合同价款比例约定的违约金")
    worst = max(shares, key=lambda share: share.percent)
    grade = _over(rule, worst.percent)
    article = CC_585 if worst.percent > civil_code.PENALTY_PRACTICE_PERCENT else None
    message = f"违约金约为合同价款的{worst.percent:.0f}%（{worst.words}），政策上限{rule.maximum}%"
    return _point(rule, grade, message, worst.evidence, article=article)


def _forum(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint | None:
    """Disputes heard in the organisation's city (no point without a city set)."""
    city = playbook.city
    if not city:
        return None
    forums = [
        (span, sentence, match.group())
        for span, sentence in contract.sentences(_FORUM_SENTENCE)
        for match in _FORUM.finditer(sentence)
    ]
    if not forums:
        return _point(rule, rule.grade, f"未约定管辖法院或仲裁机构，应约定由{city}的法院或仲裁机构管辖")
    ours = [(span, forum) for span, sentence, forum in forums if city in forum or city.rstrip("市") in forum]
    if ours:
        return _point(rule, ACCEPTABLE, f"争议由{ours[0][1]}解决，在本方所在城市", [ours[0][0]])
    span, _sentence, forum = forums[0]
    return _point(rule, rule.grade, f"约定的争议解决机构（{forum}）不在{city}", [span])


def _deposit(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint:
    """The 定金 share against the policy's cap (and the statute's 20 %)."""
    shares = civil_code.deposit_shares(contract)
    if not shares:
        return _point(rule, ACCEPTABLE, "未约定定金")
    worst = max(shares, key=lambda share: share.percent)
    grade = _over(rule, worst.percent)
    over_law = worst.percent > civil_code.DEPOSIT_LIMIT_PERCENT
    message = f"定金约为合同标的额的{worst.percent:.1f}%，上限{rule.maximum}%"
    if over_law:
        message += "；超过法定20%的部分不产生定金效力"
    return _point(rule, grade, message, worst.evidence, article=CC_586)


def _non_compete(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint:
    """A non-compete only with compensation."""
    flags = labour.non_compete(contract)
    unpaid = [f for f in flags if f.code == labour.NON_COMPETE_UNPAID]
    if unpaid:
        return _point(rule, rule.grade, unpaid[0].message, unpaid[0].evidence, article=LCL_23)
    covenants = contract.stipulated("竞业限制")
    if not covenants:
        return _point(rule, ACCEPTABLE, "未约定竞业限制")
    return _point(rule, ACCEPTABLE, "竞业限制已约定经济补偿", [(covenants[0].start, covenants[0].end)], article=LCL_23)


def _wording(rule: PlaybookRule, contract: ContractText, playbook: Playbook) -> PlaybookPoint | None:
    """Words to avoid anywhere; for a clause, its preferred words (no point when the clause is absent)."""
    folded = contract.folded
    avoided = [(m.start(), m.end()) for word in rule.avoid_any for m in re.finditer(re.escape(word), folded)]
    if avoided:
        spans = [contract.sentence_at(start) for start, _ in sorted(avoided)[:3]]
        return _point(rule, rule.grade, "出现本方不接受的表述，建议改为推荐表述", spans)
    if not rule.prefer_any:
        return _point(rule, ACCEPTABLE, "未出现本方不接受的表述")
    clauses = contract.stipulated(rule.clause) if rule.clause else []
    if rule.clause and not clauses:
        return None
    scope = [(f.start, f.end) for f in clauses] or [(0, len(folded))]
    for start, end in scope:
        if any(word in folded[start:end] for word in rule.prefer_any):
            return _point(rule, ACCEPTABLE, "采用了推荐表述", [(start, end)])
    return _point(rule, rule.grade, "未采用推荐表述", scope[:1])


_GRADERS: dict[str, Callable[[PlaybookRule, ContractText, Playbook], PlaybookPoint | None]] = {
    REQUIRED_CLAUSE: _required,
    LIMIT: _limit,
    FORUM_CITY: _forum,
    DEPOSIT_CAP: _deposit,
    NON_COMPETE_COMPENSATION: _non_compete,
    PREFERRED_WORDING: _wording,
}


def playbook_review(
    text: str, findings: Sequence[ClauseFinding], playbook: Playbook, *, kind: str | None = None
) -> list[PlaybookPoint]:
    """The playbook's points on a contract, one per rule that binds its contract type (and can be judged)."""
    kind = kind or contract_type(text).kind
    contract = ContractText(fold(text), tuple(findings), kind)
    points = [_GRADERS[rule.kind](rule, contract, playbook) for rule in playbook.rules if rule.binds(kind)]
    return [point for point in points if point is not None]
