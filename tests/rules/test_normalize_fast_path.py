"""normalize()'s fast path (C-level scans, substitutions and table look-ups, maps only for length changes) gives the
same text, report and offset map as a straightforward reference that applies every step's edits one by one."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rules.normalize import normalize
from rules.normalize.canonical import fold_edits, whitespace_edits
from rules.normalize.chars import char_class
from rules.normalize.dialect import cantonese_score, dialect_edits, is_cantonese
from rules.normalize.offsets import Edit, StepMap, apply_edits, compose_span
from rules.normalize.punctuation import punctuation_edits
from rules.normalize.script import NO_CONVERSION, choose_config, converter, has_traditional

FULL_WIDTH = [chr(code) for code in range(0xFF01, 0xFF5F)] + ["￠", "￡", "￥", "＿" * 40, "\u3000" * 33]
COMPATIBILITY_IDEOGRAPHS = [
    *"\u2f00\u2f04\u2f12\u2f45\u2fa6\u2fd5\u2e8f\u2ecc",  # Kangxi radicals, radicals supplement
    *"\uf900\uf91f\uf9d1\ufa0e\ufa2d",  # compatibility ideographs (U+FA0E is a unified one: it stays)
    *["\U0002f800", "\U0002f8a6", "\U0002fa1d", "\U0002f800" * 33],  # the supplementary block
]
TRADITIONAL = [*"兩雙執廣東這個們為說話銀行問題關係裡著綫衞麵", "本合同一式兩份"]
CANTONESE = ["佢哋", "唔係", "喺", "嘅", "咗", "點解", "依家", "用緊", "冇", "啲", "嗰", "乜嘢", "畀", "攞", "睇", "嚟"]
WHITESPACE = [
    *["\u3000", "\u00a0", "\u2028", "\u2029", "\x85", "\r", "\r\n", "\t", "\u200b", "\ufeff", "\x0b", "\x0c"],
    *["\u2003", " ", "  ", "\n", "\n\n", "\n\n\n", "\x00", "\ud800", "\udfff"],
]
PUNCTUATION = [
    *",.;:?!()\"'，。、；：？！（）“”「」『』﹐﹑､︒＂＇…⋯",
    *["..", "...", "。。。", "……", "1，200", "3．5", "12：30", "(1)", "（一）"],
]
PLAIN = [*"甲方乙方第一条租金合同承租方应当支付费用", "ABC", "abc", "f(x)", "1", "12", "3.5", "1,200", "12:30", "𠮶"]
ALPHABET = FULL_WIDTH + COMPATIBILITY_IDEOGRAPHS + TRADITIONAL + CANTONESE + WHITESPACE + PUNCTUATION + PLAIN
texts = st.lists(st.sampled_from(ALPHABET), max_size=80).map("".join) | st.text(max_size=40)
_SENTENCE = re.compile("[^。！？\n]*[。！？\n]?")


def sentence_edits(text: str, config: str) -> list[Edit]:
    """OpenCC sentence by sentence, each change trimmed to what differs."""
    convert = converter(config).convert
    edits: list[Edit] = []
    for match in _SENTENCE.finditer(text):
        sentence, converted = match.group(), convert(match.group())
        if converted == sentence:
            continue
        limit = min(len(sentence), len(converted))
        prefix = 0
        while prefix < limit and sentence[prefix] == converted[prefix]:
            prefix += 1
        suffix = 0
        while suffix < limit - prefix and sentence[-1 - suffix] == converted[-1 - suffix]:
            suffix += 1
        edits.append((match.start() + prefix, match.end() - suffix, converted[prefix : len(converted) - suffix]))
    return edits


def reference_normalize(text: str) -> tuple[str, list[StepMap], dict[str, object]]:
    """Every step as a list of edits over the whole text, applied one after the other."""
    counts: dict[str, int] = {}
    steps: list[StepMap] = []
    current = text

    def apply(edits: list[Edit], *, group_multichar: bool = False) -> None:
        nonlocal current
        current, step = apply_edits(current, edits, group_multichar=group_multichar)
        if step:
            steps.append(step)

    apply(fold_edits(current, counts))
    punctuation = punctuation_edits(current)
    apply(punctuation)
    apply(whitespace_edits(current, counts))
    score = cantonese_score(current)
    cantonese = is_cantonese(score)
    config = choose_config(current, cantonese=cantonese) if has_traditional(current) else NO_CONVERSION
    if config != NO_CONVERSION:
        apply(sentence_edits(current, config))
    dialect = dialect_edits(current) if cantonese else []
    apply(dialect, group_multichar=True)
    facts = {
        "counts": {kind: number for kind, number in counts.items() if number},
        "script_config": config,
        "cantonese_score": round(score, 4),
        "punctuation_folds": len(punctuation),
        "dialect_replacements": len(dialect),
    }
    return current, steps, facts


@settings(max_examples=400, deadline=None)
@given(texts)
@example("\r\u2028\r\n\r")  # a CR before U+2028 is a line end of its own, though U+2028 becomes LF
@example("好..好...好.. .好. a.b")  # dot runs and lone dots
@example('他说"你好"\n"再见"，「好」')  # quote state across a line break
@example("＿" * 40 + "\ud800" + "\U0002f800" * 33 + "\u2f45" * 40)  # many folds: surrogates, supplementary
@example("＿" * 40 + "\r\n" + "\u200b")  # many 1:1 folds and edits that change the length
@example("金额１，２００元，1，200元，3．5米，12：30")
@example("甲方支付租金1，200元" * 6)  # ticket length (prescanned): a full-width mark inside a number, nothing else
@example("他说(1)租金1，200元.好..好" * 4 + "本合同一式兩份")  # prescanned: marks, a number, a traditional line
@example("１，２" + "甲" * 70)  # prescanned: a fold makes the digits around a full-width comma
@example("他而\n家点 解不去。" + "甲方支付租金。" * 10)  # prescanned: two-character markers split by whitespace
@example("甲方而且得到" * 12)  # prescanned: first characters of markers that start none
@example("甲" * 70 + "\U0002f800說")  # prescanned: a supplementary ideograph folds, a traditional character follows
@example(("＿" * 40 + "甲方，乙方\u3000１２３\u2f45\uf9d1𠮶\x07") * 60)  # long: counted and folded in one pass
@example(("＿" * 40 + "甲方，乙方\u3000１２３\u2f45") * 60 + "\r\n\U0002f800")  # long, with folds outside it
@example("豈\u2028著:")  # tw2s changes 著 though t2s keeps it: its line is converted too
@example("著\n\n𪘀")  # the same, a supplementary character's line beside it
def test_fast_path_matches_the_reference(text: str) -> None:
    result = normalize(text)
    expected_text, expected_steps, facts = reference_normalize(text)
    assert result.text == expected_text
    length = len(expected_text)
    for position in range(length + 1):
        gap = compose_span(expected_steps, position, position, length)
        assert result.to_original(position, position) == gap
        if position < length:
            span = compose_span(expected_steps, position, position + 1, length)
            assert result.to_original(position, position + 1) == span
    report = result.report
    assert report.script_config == facts["script_config"]
    assert report.cantonese_score == facts["cantonese_score"]
    assert report.punctuation_folds == facts["punctuation_folds"]
    assert report.dialect_replacements == facts["dialect_replacements"]
    counts = facts["counts"]
    assert isinstance(counts, dict)
    assert report.width_folds == counts.get("width", 0)
    assert report.ideographs_folded == counts.get("ideograph", 0)
    assert report.invisible_removed == counts.get("invisible", 0)
    assert report.line_ends_unified == counts.get("crlf", 0) + counts.get("linesep", 0)
    assert report.invalid_replaced == counts.get("invalid", 0)
    assert report.controls_replaced == counts.get("control", 0)
    assert report.spaces_removed == counts.get("spaces_removed", 0)
    assert report.lines_joined == counts.get("lines_joined", 0)


def test_character_classes_are_written_as_ranges() -> None:
    # 542 supplementary compatibility ideographs listed one by one cost the regex engine 542 tests per character
    assert char_class(map(chr, range(0x2F800, 0x2FA1E))) == "[\U0002f800-\U0002fa1d]"
    assert char_class("cab-") == "[\\-a-c]"
    assert char_class("ab") == "[ab]"
    pattern = re.compile(char_class(["\U0002f800", "\U0002f801", "x", "]"]))
    assert pattern.findall("]x\U0002f801y") == ["]", "x", "\U0002f801"]
