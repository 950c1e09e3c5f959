"""Ticket taxonomy, keyword rules and their combination with a trained classifier (no Django)."""

from __future__ import annotations

import pytest

from rules.evaluation.common import jsonl_rows
from rules.evaluation.tickets import evaluate_tickets
from rules.normalize.width import fold_text
from rules.tickets import classify_ticket, load_taxonomy, rule_match
from rules.tickets.classifier import Prediction
from rules.tickets.combine import CLASSIFIER_WEAK, RULES_STRONG, combine
from rules.tickets.pack import load_pack, pack_from_dict
from rules.tickets.taxonomy import csv_paths
from tests.shared_data import shared_file

# Written for these tests in the style of 12345 hotline tickets: (id, text, level-1 label).
TICKETS = [
    ("unpaid-wages", "某建材公司拖欠我们二十名工人三个月工资，老板失联，请劳动监察大队帮忙讨薪", "劳动和社会保障"),
    ("pension", "我父亲办理退休手续已经半年，养老金至今没有发放，社保局说材料还在审核", "劳动和社会保障"),
    ("medical-insurance", "异地就医住院后医保报销比例太低，想咨询城乡居民医保的报销政策", "劳动和社会保障"),
    ("labour-contract", "入职一年公司一直不签劳动合同，也不交五险一金，现在无故辞退我", "劳动和社会保障"),
    ("property-fees", "小区物业公司擅自上涨物业费，电梯口堆满垃圾也没人清理，业主委员会要求更换物业", "城乡建设"),
    ("illegal-building", "楼下住户在公共绿地私自搭建铁皮房，属于违章建筑，城管来过一次没有拆除", "城乡建设"),
    ("deed-delay", "交房已经三年开发商还没给我们办房产证，不动产登记中心说开发商手续不全", "城乡建设"),
    ("demolition", "棚户区改造拆迁补偿标准太低，安置房迟迟不开工，拆迁户只能租房过渡", "城乡建设"),
    ("school-fees", "县实验小学开学要求每个学生交两百元资料费，还让家长买指定教辅，是否属于乱收费", "教育文体"),
    ("tutoring", "中学班主任周末在家里给本班学生有偿补课，不参加的孩子座位被调到后排", "教育文体"),
    ("enrolment", "孩子户籍在学区内却被划片到五公里外的初中，招生政策能否公开", "教育文体"),
    ("pyramid-scheme", "亲戚被拉进一个卖保健酒的团伙，交三万多入会，要发展下线拉人头，疑似传销", "商贸旅游"),
    ("scenic-area", "国庆去景区旅游，门票涨价还强制游客乘坐观光车，导游带我们进购物店", "商贸旅游"),
    ("lift-fault", "商场的电梯经常故障停运，上周还困人半小时，特种设备年检是否过期", "商贸旅游"),
    ("birth-permit", "想生二孩去街道计生办办理生育登记，要求提供一堆证明，准生证一直办不下来", "卫生计生"),
    ("hospital-dispute", "母亲在县人民医院做手术后感染，医生说不清原因，我们怀疑是医疗事故", "卫生计生"),
    ("vaccine", "社区卫生服务中心的疫苗长期缺货，孩子预防接种一直推迟", "卫生计生"),
    ("factory-smoke", "村旁的化工厂晚上偷偷排放废气，气味刺鼻，河里的鱼大片死亡，请环保局查处", "环境保护"),
    ("night-noise", "工地每天夜间施工到凌晨，机器轰鸣噪音扰民，附近居民无法休息", "环境保护"),
    ("pig-farm", "养猪场的猪粪直接排进水渠，污染农田和饮用水源，臭味很大", "环境保护"),
    ("taxi-refusal", "晚上在火车站打出租车，司机拒载还不打表，要求一口价五十元", "交通运输"),
    ("courier-fee", "乡镇的快递网点取件要另外加收两元，包裹不派送到村", "交通运输"),
    ("potholes", "通往镇上的县道路面坑坑洼洼，大货车一过尘土飞扬，请交通局尽快维修", "交通运输"),
]


@pytest.mark.parametrize(("text", "label"), [t[1:] for t in TICKETS], ids=[t[0] for t in TICKETS])
def test_rules_route_hotline_wording_to_its_category(text: str, label: str) -> None:
    result = rule_match(text)
    assert result.label == label
    assert result.evidence, "a routed ticket must show the terms that decided it"
    assert all(fold_text(text)[hit.start : hit.end] == hit.term for hit in result.evidence)


def test_ticket_without_any_category_vocabulary_gets_no_label() -> None:
    result = classify_ticket("您好，请问一下这个事情怎么办？谢谢")
    assert result.label is None
    assert result.department is None
    assert result.confidence == 0.0


@pytest.mark.parametrize(
    ("text", "level1", "level2", "level3"),
    [
        ("开发商交房三年了还不给办房产证", "城乡建设", "住房保障与房地产", "房产证登记、办理"),
        ("厂里排放的污水把村里的水井都污染了，水质发黑", "环境保护", "环境污染", "水污染"),
        ("网约车平台的司机绕路多收费，滴滴客服不处理", "交通运输", "出租车管理", "网约车问题"),
        ("单位克扣工资，已经欠薪半年，讨薪无门", "劳动和社会保障", "工资福利", "工资发放"),
    ],
    ids=["deed", "water-pollution", "ride-hailing", "wages"],
)
def test_strong_evidence_reaches_level2_and_level3(text: str, level1: str, level2: str, level3: str) -> None:
    result = classify_ticket(text)
    assert (result.label, result.level2, result.level3) == (level1, level2, level3)
    assert load_taxonomy().has_path(level1, level2, level3)


def test_routing_department_uses_level2_override_when_present() -> None:
    taxonomy = load_taxonomy()
    assert taxonomy.department("劳动和社会保障") == "人力资源和社会保障局"
    assert taxonomy.department("商贸旅游", "旅游管理") == "文化和旅游局"
    assert classify_ticket("景区门票涨价还强制消费，旅行社导游辱骂游客").department == "文化和旅游局"


def test_taxonomy_pack_is_exactly_the_organisers_taxonomy() -> None:
    taxonomy = load_taxonomy()
    assert list(taxonomy.paths()) == csv_paths(shared_file("tickets/taxonomy_3level.csv"))
    assert len(taxonomy.level1_names) == 15
    assert all(category.department for category in taxonomy.categories)
    assert "Teddy Cup" in taxonomy.source and taxonomy.version


def test_every_rule_has_an_id_a_version_and_a_taxonomy_path() -> None:
    pack = load_pack()
    assert pack.version
    assert len({rule.id for rule in pack.rules}) == len(pack.rules)
    assert {rule.level1 for rule in pack.rules} == set(load_taxonomy().level1_names)


def test_pack_rejects_a_rule_outside_the_taxonomy() -> None:
    data = {
        "version": "t",
        "scoring": {
            "title_chars": 30,
            "title_boost": 1.5,
            "min_score": 1,
            "strength_scale": 6,
            "level2_min_score": 3,
            "level3_min_score": 2,
        },
        "rules": [{"id": "X-1", "level1": "城乡建设", "level2": "不存在的类", "weight": 1, "terms": ["物业"]}],
    }
    with pytest.raises(ValueError, match="not in the taxonomy"):
        pack_from_dict(data, load_taxonomy())


def test_full_width_text_matches_and_spans_point_into_the_original() -> None:
    text = "ＡＢＣ小区物业费太贵，ＥＴＣ收费站排长队"
    result = rule_match(text)
    for hit in result.evidence:
        assert len(text[hit.start : hit.end]) == len(hit.term)


def test_combination_prefers_classifier_unless_rules_strong_and_classifier_weak() -> None:
    pack = load_pack()
    text = "工厂排放废气污染空气，污水直排河道，环保局不管"
    rules = rule_match(text)
    assert rules.label == "环境保护" and rules.confidence >= RULES_STRONG
    agree = combine(text, rules, Prediction("环境保护", 0.9), pack=pack)
    assert (agree.source, agree.agreement, agree.label) == ("both", True, "环境保护")
    assert agree.confidence > 0.9
    weak = combine(text, rules, Prediction("城乡建设", CLASSIFIER_WEAK - 0.1), pack=pack)
    assert (weak.source, weak.label, weak.agreement) == ("rules", "环境保护", False)
    confident = combine(text, rules, Prediction("城乡建设", CLASSIFIER_WEAK + 0.1), pack=pack)
    assert (confident.source, confident.label) == ("classifier", "城乡建设")
    assert confident.department == "住房和城乡建设局"


def test_rules_alone_reach_macro_f1_070_on_the_public_board() -> None:
    report = evaluate_tickets(jsonl_rows(shared_file("tickets/public.jsonl")))
    assert report["mode"] == "rules"
    assert report["n"] == 1842
    assert report["macro_f1"] >= 0.70, report["per_label"]
    assert set(report["per_label"]) == {
        "城乡建设",
        "劳动和社会保障",
        "教育文体",
        "商贸旅游",
        "卫生计生",
        "环境保护",
        "交通运输",
    }
