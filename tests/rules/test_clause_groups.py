"""One answer per clause type: grouping, status order, the primary finding and the model's score."""

from __future__ import annotations

from rules.clauses import (
    BLANK,
    NEGATED,
    REFERENCED,
    STIPULATED,
    ClauseGroup,
    clause_groups,
    clause_matches,
    clause_presence,
    load_pack,
)
from rules.clauses.heading_model import OTHER
from rules.evaluation.common import jsonl_rows
from tests.shared_data import shared_file

CONTRACT = (
    "第一条 保密条款\n"
    "双方对在履行本合同过程中知悉的对方商业秘密负有保密义务，未经书面同意不得向第三方披露。\n"
    "第二条 违约责任\n"
    "乙方违反本合同第一条保密义务的，应向甲方支付违约金人民币五万元。\n"
    "第三条 合同解除\n"
    "乙方泄露甲方商业秘密的，甲方有权解除本合同。保密义务在本合同解除后继续有效。\n"
)


def _group(text: str, label: str) -> ClauseGroup | None:
    groups, _analysis = clause_groups(text)
    found = [group for group in groups if group.label == label]
    assert len(found) <= 1
    return found[0] if found else None


def test_every_clause_type_is_one_group_and_every_finding_belongs_to_one() -> None:
    groups, analysis = clause_groups(CONTRACT)
    labels = [group.label for group in groups]
    assert len(labels) == len(set(labels))
    grouped = sorted((f for group in groups for f in group.findings), key=id)
    assert sorted(analysis.findings, key=id) == grouped, "no finding lost, none counted twice"
    secrecy = next(group for group in groups if group.label == "保密")
    assert len(secrecy.findings) >= 2, "the confidentiality article and its mentions in later articles"
    assert CONTRACT[secrecy.primary.start :].startswith("第一条"), "the dedicated article is the primary evidence"
    assert [f.start for f in secrecy.others] == sorted(f.start for f in secrecy.others)
    assert secrecy.status == STIPULATED
    assert set(secrecy.rule_ids) == {f.rule_id for f in secrecy.findings}


def test_the_primary_finding_is_what_presence_and_the_evaluation_read() -> None:
    for row in list(jsonl_rows(shared_file("contracts/public.jsonl")))[:8]:
        presence = clause_presence(row["text"])
        for group in clause_groups(row["text"])[0]:
            expected = group.primary if group.status in (STIPULATED, BLANK) else None
            assert presence[group.label] == expected


def test_written_terms_outrank_a_reference_to_them() -> None:
    text = (
        "第五条 保密\n乙方应对甲方的技术资料和商业秘密保密，不得向任何第三方披露。\n第九条 其他\n保密事项详见第五条。"
    )
    group = _group(text, "保密")
    assert group is not None and group.status == STIPULATED
    assert any(f.status == REFERENCED for f in group.others), "the reference stays as further evidence"


def test_an_unfilled_template_article_is_a_blank_slot() -> None:
    text = "第七条　验收方法＿＿＿＿＿＿\n第八条　结算方式及期限：＿＿＿＿＿＿＿＿"
    for label in ("验收", "付款/结算"):
        group = _group(text, label)
        assert group is not None and group.status == BLANK, label
        assert group.primary.slot
    written = text + "\n第九条 验收\n货到后甲方应在七日内组织验收，验收合格后签署验收报告。"
    group = _group(written, "验收")
    assert group is not None and group.status == STIPULATED


def test_an_excluded_clause_is_a_negated_group_and_not_present() -> None:
    text = "本合同不设定金。"
    group = _group(text, "定金")
    assert group is not None and group.status == NEGATED
    assert clause_presence(text)["定金"] is None


def test_only_referenced_is_a_referenced_group() -> None:
    group = _group("双方的保密义务详见保密协议。", "保密")
    assert group is not None and group.status == REFERENCED
    assert group.confidence == max(f.confidence for f in group.findings)


class _FixedModel:
    """A stand-in article model with fixed probabilities (the real one is tested in test_clause_heading_model)."""

    def __init__(self, answers: dict[str, float]) -> None:
        self.answers = answers
        self.labels = (*answers, OTHER)

    def probabilities(self, body: str) -> dict[str, float]:
        return {**self.answers, OTHER: max(0.0, 1 - sum(self.answers.values()))}


def test_the_model_score_is_the_best_probability_over_the_articles_it_was_asked_about() -> None:
    text = CONTRACT + "第四条\n乙方交付的设备经甲方检验合格后，双方签署书面确认单。\n"
    groups, analysis = clause_groups(text, model=_FixedModel({"验收": 0.93, "保密": 0.2}))
    assert analysis.model_scores == {"验收": 0.93, "保密": 0.2}
    by_label = {group.label: group for group in groups}
    assert by_label["验收"].model_score == 0.93
    assert by_label["验收"].primary.rule_id == "clause.model.验收"
    assert by_label["保密"].model_score == 0.2, "the rules found it; the model's doubt is still reported"
    assert all(group.model_score is None for group in clause_groups(text)[0]), "no model, no score"


def test_grouping_keeps_every_label_of_the_pack_it_found() -> None:
    text = "\n".join(row["text"] for row in list(jsonl_rows(shared_file("contracts/public.jsonl")))[:3])
    labels = {f.label for f in clause_matches(text)}
    assert {group.label for group in clause_groups(text)[0]} == labels
    assert labels <= set(load_pack().clauses)
