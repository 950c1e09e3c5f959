"""Playbook review: every rule kind graded on contract sentences that keep it and that break it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from rules.clauses import clause_matches
from rules.playbook import (
    ACCEPTABLE,
    ESCALATE,
    NEGOTIATE,
    Playbook,
    PlaybookError,
    PlaybookPoint,
    default_rules_data,
    load_default_playbook,
    playbook_from_data,
    playbook_review,
)

SALE = "设备买卖合同\n出卖人（甲方）：某某机械有限公司\n买受人（乙方）：某某制造有限公司\n"
LABOUR = "劳动合同书\n用人单位（甲方）：某某科技有限公司\n劳动者（乙方）：王某\n"


def playbook(*rules: dict[str, Any], city: str = "杭州市") -> Playbook:
    return playbook_from_data(list(rules), pack="test", version="1", city=city)


def point(text: str, book: Playbook, rule_id: str) -> PlaybookPoint:
    points = playbook_review(text, clause_matches(text), book)
    return next(p for p in points if p.rule_id == rule_id)


REQUIRED = {"id": "req", "kind": "required_clause", "clauses": ["违约金/违约责任", "争议解决"], "grade": "negotiate"}


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        (
            SALE + "第八条 违约责任\n任何一方违约的，应赔偿对方损失。\n第九条 争议解决\n"
            "因本合同发生的争议，双方协商解决；协商不成的，提交杭州仲裁委员会仲裁。",
            ACCEPTABLE,
        ),
        (SALE + "第八条 违约责任\n任何一方违约的，应赔偿对方损失。", NEGOTIATE),
        (SALE + "第八条 违约责任\n任何一方违约的，应赔偿对方损失。\n第九条 争议解决：＿＿＿＿＿＿＿＿", NEGOTIATE),
    ],
    ids=["both-stated", "dispute-clause-missing", "dispute-clause-blank"],
)
def test_required_clause(text: str, grade: str) -> None:
    found = point(text, playbook(REQUIRED), "req")
    assert found.grade == grade
    if grade == NEGOTIATE:
        assert "争议解决" in found.message


def test_required_clause_binds_only_its_contract_types() -> None:
    rule = {**REQUIRED, "id": "req.labour", "contract_types": ["labour"]}
    assert not [p for p in playbook_review(SALE, clause_matches(SALE), playbook(rule)) if p.rule_id == "req.labour"]
    assert point(LABOUR, playbook(rule), "req.labour").grade == NEGOTIATE


PENALTY = {"id": "pen", "kind": "limit", "measure": "penalty_percent_of_price", "maximum": "20", "escalate_over": "30"}


@pytest.mark.parametrize(
    ("sentence", "grade", "article"),
    [
        ("乙方逾期交货的，应按合同总价的10%向甲方支付违约金。", ACCEPTABLE, None),
        ("乙方逾期交货的，应按合同总价的25%向甲方支付违约金。", NEGOTIATE, None),
        ("乙方逾期交货的，应按合同总价的40%向甲方支付违约金。", ESCALATE, "第585条"),
        ("合同总价为人民币100万元。任何一方违约的，应向对方支付违约金人民币五十万元。", ESCALATE, "第585条"),
    ],
    ids=["10pct", "25pct", "40pct", "amount-half-the-price"],
)
def test_penalty_limit(sentence: str, grade: str, article: str | None) -> None:
    text = SALE + sentence
    found = point(text, playbook(PENALTY), "pen")
    assert found.grade == grade
    assert (found.article.number if found.article else None) == article
    assert any("违约金" in text[s:e] for s, e in found.evidence)


PAYMENT = {"id": "pay", "kind": "limit", "measure": "payment_days", "maximum": "30", "escalate_over": "90"}


@pytest.mark.parametrize(
    ("sentence", "grade"),
    [
        ("买方应在收到发票后三十日内支付全部货款。", ACCEPTABLE),
        ("买方应在验收合格后五个工作日内付清货款。", ACCEPTABLE),
        ("买方应在收到发票后60天内支付货款。", NEGOTIATE),
        ("双方约定货款账期为120天。", ESCALATE),
        ("买方逾期付款超过60日的，卖方有权解除合同。买方应在到货后十日内支付货款。", ACCEPTABLE),
        ("买方应在签订本合同后90日内，付清全部价款。", NEGOTIATE),
        ("买方支付预付款后，卖方应在十二个月内完成设备的安装调试。", ACCEPTABLE),
        ("买方应在验收合格后一百二十（120）日内支付全部货款。", ESCALATE),
    ],
    ids=[
        "30-days",
        "5-working-days",
        "60-days",
        "120-day-credit",
        "overdue-threshold-is-not-a-term",
        "90-days-then-pay-is-not-over-the-escalation-line",
        "period-of-another-duty",
        "number-repeated-in-digits",
    ],
)
def test_payment_days_limit(sentence: str, grade: str) -> None:
    assert point(SALE + sentence, playbook(PAYMENT), "pay").grade == grade


FORUM = {"id": "forum", "kind": "forum_city", "grade": "negotiate"}


@pytest.mark.parametrize(
    ("sentence", "grade"),
    [
        ("因本合同引起的争议，由杭州市西湖区人民法院管辖。", ACCEPTABLE),
        ("因本合同引起的争议，提交杭州仲裁委员会仲裁。", ACCEPTABLE),
        ("因本合同引起的争议，由北京市朝阳区人民法院管辖。", NEGOTIATE),
        ("因本合同引起的争议，提交上海国际仲裁中心仲裁。", NEGOTIATE),
        ("双方友好合作。", NEGOTIATE),
    ],
    ids=["our-court", "our-arbitration", "other-court", "other-arbitration", "no-forum"],
)
def test_forum_city(sentence: str, grade: str) -> None:
    assert point(SALE + sentence, playbook(FORUM), "forum").grade == grade


def test_forum_rule_waits_for_a_city() -> None:
    text = SALE + "因本合同引起的争议，由北京市朝阳区人民法院管辖。"
    assert not playbook_review(text, clause_matches(text), playbook(FORUM, city=""))


DEPOSIT = {"id": "dep", "kind": "deposit_cap", "maximum": "20", "grade": "escalate"}


@pytest.mark.parametrize(
    ("sentence", "grade"),
    [
        ("合同总价为人民币100万元。买方应于签约后五日内支付定金人民币10万元。", ACCEPTABLE),
        ("合同总价为人民币100万元。买方应于签约后五日内支付定金人民币30万元。", ESCALATE),
        ("买方应于签约之日支付相当于合同总额百分之二十五的定金。", ESCALATE),
        ("本合同不设定金。", ACCEPTABLE),
    ],
    ids=["10pct", "30pct-amount", "25pct-share", "none"],
)
def test_deposit_cap(sentence: str, grade: str) -> None:
    found = point(SALE + sentence, playbook(DEPOSIT), "dep")
    assert found.grade == grade
    if grade == ESCALATE:
        assert found.article is not None and found.article.citation == "民法典第586条"


def test_an_organisation_may_cap_the_deposit_below_the_law() -> None:
    stricter = {**DEPOSIT, "maximum": "5", "grade": "negotiate"}
    text = SALE + "合同总价为人民币100万元。买方应于签约后五日内支付定金人民币10万元。"
    assert point(text, playbook(stricter), "dep").grade == NEGOTIATE


NON_COMPETE = {"id": "nc", "kind": "non_compete_compensation", "grade": "escalate"}


@pytest.mark.parametrize(
    ("sentence", "grade"),
    [
        ("乙方离职后二年内应遵守竞业限制义务，甲方在竞业限制期内按月向乙方支付经济补偿。", ACCEPTABLE),
        ("乙方离职后二年内应遵守竞业限制义务，不得到与甲方有竞争关系的单位任职。", ESCALATE),
        ("双方不约定竞业限制。", ACCEPTABLE),
    ],
    ids=["paid", "unpaid", "none"],
)
def test_non_compete_compensation(sentence: str, grade: str) -> None:
    found = point(LABOUR + sentence, playbook(NON_COMPETE), "nc")
    assert found.grade == grade
    if grade == ESCALATE:
        assert found.article is not None and found.article.citation == "劳动合同法第23条"


AVOID = {"id": "avoid", "kind": "preferred_wording", "avoid_any": ["最终解释权"], "grade": "escalate",
         "suggestion": "本合同条款由双方共同解释。"}  # fmt: skip
PREFER = {"id": "prefer", "kind": "preferred_wording", "clause": "保密", "prefer_any": ["终止后", "保密期限"],
          "suggestion": "本合同终止后，保密条款继续有效。"}  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "sentence", "grade"),
    [
        (AVOID, "本合同的最终解释权归甲方所有。", ESCALATE),
        (AVOID, "本合同未尽事宜，由双方协商解决。", ACCEPTABLE),
        (PREFER, "第七条 保密\n双方对本合同内容负有保密义务，本合同终止后仍应继续履行。", ACCEPTABLE),
        (PREFER, "第七条 保密\n双方对本合同内容负有保密义务，未经对方同意不得向第三方披露。", NEGOTIATE),
    ],
    ids=["avoided-words", "no-avoided-words", "preferred-words", "other-words"],
)
def test_preferred_wording(rule: dict[str, Any], sentence: str, grade: str) -> None:
    found = point(SALE + sentence, playbook(rule), str(rule["id"]))
    assert found.grade == grade
    assert bool(found.suggestion) is (grade != ACCEPTABLE)


def test_preferred_wording_of_an_absent_clause_is_not_graded() -> None:
    text = SALE + "买方应在收到发票后三十日内支付全部货款。"
    assert not playbook_review(text, clause_matches(text), playbook(PREFER))


def test_the_default_pack_is_versioned_and_grades_every_rule_that_binds() -> None:
    book = load_default_playbook()
    assert (book.pack, book.version) == ("playbook.default", "2026.1.0")
    text = LABOUR + "本合同期限为三年。乙方离职后二年内应遵守竞业限制义务。本合同的最终解释权归甲方所有。"
    points = {p.rule_id: p for p in playbook_review(text, clause_matches(text), book)}
    assert points["non_compete.paid"].grade == ESCALATE
    assert points["wording.interpretation"].grade == ESCALATE
    assert "limit.payment_days" not in points  # bound to sale and general contracts only
    assert "forum.city" not in points  # the default names no city


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"kind": "guess"}, "unknown kind"),
        ({"grade": "acceptable"}, "negotiate or escalate"),
        ({"contract_types": ["marriage"]}, "contract types"),
        ({"maximum": "abc"}, "not a number"),
        ({"maximum": None}, "maximum"),
        ({"escalate_over": "10"}, "escalate_over"),
    ],
    ids=["kind", "grade", "contract-type", "number", "no-maximum", "escalation-below-maximum"],
)
def test_a_malformed_rule_is_refused_with_its_reason(change: dict[str, Any], words: str) -> None:
    with pytest.raises(PlaybookError, match=words):
        playbook({**PENALTY, **change})


def test_duplicate_rule_ids_are_refused() -> None:
    with pytest.raises(PlaybookError, match="unique"):
        playbook(PENALTY, PENALTY)


def test_default_rules_parse_and_carry_decimal_limits() -> None:
    book = playbook(*default_rules_data())
    limits = {rule.rule_id: rule.maximum for rule in book.rules if rule.maximum is not None}
    assert limits["limit.penalty"] == Decimal(20) and limits["deposit.cap"] == Decimal(20)
