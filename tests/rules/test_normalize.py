"""normalize(): canonical form, script, dialect, bad input and report, on hand-written Chinese snippets."""

from __future__ import annotations

import json

import pytest

from rules.normalize import NormalizedText, cantonese_score, normalize, to_simplified


def normalized(text: str) -> str:
    return normalize(text).text


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("ＡＢＣ公司１２３号", "ABC公司123号"),
        ("租金￥３０００元", "租金¥3000元"),
        ("甲方,乙方;丙方:见附件!", "甲方，乙方；丙方：见附件！"),
        ("是否同意?请回复.", "是否同意？请回复。"),
        ("金额1,200.50元，时间12:30", "金额1,200.50元，时间12:30"),
        ("金额１，２００元", "金额1,200元"),
        ("他说「你好」，她说『再见』", "他说“你好”，她说‘再见’"),
        ('标题为"租赁合同"的文件', "标题为“租赁合同”的文件"),
        ("等待中...请稍候。。。好的⋯⋯", "等待中……请稍候……好的……"),
        ("(一)甲方的权利", "（一）甲方的权利"),
        ("费用(含税)另计", "费用（含税）另计"),
        ("f(x) = y, done.", "f(x) = y, done."),
        ("苹果﹑香蕉､梨", "苹果、香蕉、梨"),
        ("壹仟贰佰元整，即一千二百元", "壹仟贰佰元整，即一千二百元"),
    ],
    ids=[
        "fullwidth-letters-digits",
        "fullwidth-yen",
        "ascii-punctuation-beside-chinese",
        "question-and-full-stop",
        "numbers-keep-ascii",
        "fullwidth-comma-inside-number",
        "corner-brackets-to-curly-quotes",
        "straight-quotes-pair",
        "ellipsis-family",
        "list-marker-parentheses",
        "inline-parentheses",
        "latin-text-untouched",
        "enumeration-comma-variants",
        "chinese-numerals-kept",
    ],
)
def test_canonical_form(original: str, expected: str) -> None:
    assert normalized(original) == expected


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("甲方\u3000张三", "甲方 张三"),
        ("合同\u200b编号\ufeff", "合同编号"),
        ("房屋  租赁\t\t合同", "房屋 租赁 合同"),
        ("你好 ， 世界", "你好，世界"),
        ("  首尾空格  ", "首尾空格"),
        ("第一段。\n\n\n\n第二段。", "第一段。\n\n第二段。"),
        ("承租方应当按时支付\n租金，不得拖欠。", "承租方应当按时支付租金，不得拖欠。"),
        ("the tenant shall\npay rent", "the tenant shall pay rent"),
        ("双方约定如下\n第一条 租赁期限为一年。", "双方约定如下\n第一条 租赁期限为一年。"),
        ("双方的权利义务如下\n一、甲方的义务", "双方的权利义务如下\n一、甲方的义务"),
        ("包括但不限于\n（一）维修费用", "包括但不限于\n（一）维修费用"),
        ("具体如下\n1. 押金两个月", "具体如下\n1. 押金两个月"),
        ("租金按月支付。\n逾期按日计息。", "租金按月支付。\n逾期按日计息。"),
        ("第三条 租金\n每月租金为三千元整。", "第三条 租金\n每月租金为三千元整。"),
        ("甲方：张三\n乙方：李四", "甲方：张三\n乙方：李四"),
        ("房屋租赁合同\n出租方将房屋出租给承租方。", "房屋租赁合同\n出租方将房屋出租给承租方。"),
    ],
    ids=[
        "ideographic-space",
        "zero-width-and-bom",
        "space-runs",
        "spaces-around-chinese-punctuation",
        "trim-edges",
        "paragraph-breaks-collapse",
        "hard-wrap-joined-without-space",
        "latin-hard-wrap-joined-with-space",
        "article-break-kept",
        "chinese-list-break-kept",
        "parenthesised-list-break-kept",
        "numbered-list-break-kept",
        "sentence-end-break-kept",
        "article-heading-line-kept",
        "field-lines-kept",
        "title-line-kept",
    ],
)
def test_spaces_and_lines(original: str, expected: str) -> None:
    assert normalized(original) == expected


@pytest.mark.parametrize(
    ("original", "expected", "config"),
    [
        ("本合同一式兩份，雙方各執一份。", "本合同一式两份，双方各执一份。", "t2s"),
        ("滑鼠裡面的電線著火了", "滑鼠里面的电线着火了", "tw2s"),
        ("這條綫路由衞生署負責", "这条线路由卫生署负责", "hk2s"),
        ("本合同一式两份，双方各执一份。", "本合同一式两份，双方各执一份。", "none"),
    ],
    ids=["plain-traditional-t2s", "taiwan-variants-tw2s", "hong-kong-variants-hk2s", "simplified-untouched"],
)
def test_script_conversion(original: str, expected: str, config: str) -> None:
    assert to_simplified(original) == (expected, config)
    result = normalize(original)
    assert result.text == expected
    assert result.report.script_config == config


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        (
            "我嘅社保卡喺深圳辦嘅，依家喺廣州用緊，點解扣咗兩單錢？",
            "我的社保卡在深圳办的，现在在广州用，为什么扣了两单钱？",
        ),
        ("佢哋唔係本地人。", "他们不是本地人。"),
        ("我冇收到通知，你幫我睇下係咪寄錯咗地址。", "我没有收到通知，你帮我看看是不是寄错了地址。"),
        ("邊度可以攞返證件？", "哪里可以拿回证件？"),
        ("呢個問題點樣處理？", "这个问题怎么样处理？"),
        ("佢係我哋嘅經理，佢同我講咗好多嘢。", "他是我们的经理，他跟我说了很多东西。"),
        ("佢哋嘅關係好好，系統都升級咗。", "他们的关系好好，系统都升级了。"),
    ],
    ids=[
        "issue-example",
        "negated-copula",
        "no-and-check",
        "where-and-take",
        "this-and-how",
        "copula",
        "guanxi-kept",
    ],
)
def test_cantonese_rewritten_to_mandarin(original: str, expected: str) -> None:
    result = normalize(original)
    assert result.report.is_cantonese
    assert result.text == expected


@pytest.mark.parametrize(
    "mandarin",
    [
        "我们之间的关系很好，系统也运行正常。",
        "请问这个问题怎么处理？我已经等了很久了。",
        "小区物业从去年开始乱收费，每月多收五十元，请相关部门核实处理。",
        "他是联系人，负责系统维护和体系建设。",
        "紧急情况请拨打电话，要紧的事情先办。",
    ],
    ids=["guanxi-xitong", "question", "ticket", "lianxi-tixi", "jin-in-mandarin"],
)
def test_mandarin_passes_unchanged(mandarin: str) -> None:
    result = normalize(mandarin)
    assert not result.report.is_cantonese
    assert result.report.dialect_replacements == 0
    assert result.text == mandarin


def test_cantonese_score_is_a_density() -> None:
    assert cantonese_score("") == 0.0
    assert cantonese_score("我们的关系很好，系统运行正常。") == 0.0
    one_marker_in_long_text = "小区物业从去年开始乱收费" * 20 + "佢"
    assert cantonese_score(one_marker_in_long_text) < 0.03
    assert cantonese_score("佢哋喺度食緊飯，唔好嘈。") > 0.2


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "\ud800孤立代理\udfff项",
        "控制\x00字符\x07在\x1b这里\x7f",
        "一行\r\n二行\r三行\n四行",
        "\ufeff\u200b\u200d",
        "\n\n\n",
        "   ",
        "\ufffe\uffff非字符",
        "𠮶啲嘢",
    ],
    ids=[
        "empty",
        "lone-surrogates",
        "control-chars",
        "mixed-line-ends",
        "only-invisible",
        "only-newlines",
        "only-spaces",
        "noncharacters",
        "supplementary-plane",
    ],
)
def test_bad_input_gives_valid_output(bad: str) -> None:
    result = normalize(bad)
    assert isinstance(result, NormalizedText)
    assert not any("\ud800" <= c <= "\udfff" for c in result.text)
    assert not any(ord(c) < 32 and c not in "\n\t" for c in result.text)
    for start in range(len(result.text) + 1):
        for end in range(start, len(result.text) + 1):
            original_start, original_end = result.to_original(start, end)
            assert 0 <= original_start <= original_end <= len(bad)
            if end > start:
                assert original_end > original_start
    json.dumps(result.report.as_dict())


def test_lone_surrogates_become_replacement_character() -> None:
    assert normalized("\ud800孤立") == "\ufffd孤立"


def test_control_characters_become_spaces_and_collapse() -> None:
    assert normalized("控制\x00\x07字符") == "控制 字符"


def test_mixed_line_ends_unify() -> None:
    result = normalize("第一段。\r\n第二段。\r第三段。")
    assert result.text == "第一段。\n第二段。\n第三段。"
    assert result.report.line_ends_unified == 2
    assert result.to_original(5, 8) == (6, 9)


def test_five_megabyte_single_line() -> None:
    line = "承租方应当按时支付租金,不得拖欠ＡＢＣ\u3000" * 250_000
    result = normalize(line)
    assert len(line) >= 5_000_000
    assert "\n" not in result.text
    assert result.text.startswith("承租方应当按时支付租金，不得拖欠ABC 承租方")
    assert result.to_original(len(result.text) - 3, len(result.text)) == (len(line) - 4, len(line) - 1)


def test_report_counts_what_changed() -> None:
    report = normalize("ＡＢ,合同\u200b编号  内容\n继续").report
    assert report.width_folds == 2
    assert report.punctuation_folds == 1
    assert report.invisible_removed == 1
    assert report.lines_joined == 1
    assert report.script_config == "none"
    assert report.as_dict()["lexicon_id"] == "docgate.cantonese_mandarin"


def test_dialect_report() -> None:
    report = normalize("佢哋唔係本地人。").report
    assert report.is_cantonese
    assert report.script_config == "hk2s"
    assert report.dialect_replacements == 2  # 佢哋, 唔係
    assert report.cantonese_score > 0.03
