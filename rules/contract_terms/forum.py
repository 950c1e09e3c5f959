"""Governing law and forum: the law the contract chooses, and the court or arbitration body disputes go to."""

from __future__ import annotations

import re

from rules.contract_terms.blanks import BLANK_PATTERN
from rules.contract_terms.model import BLANK, Forum, KeyTerm
from rules.contract_terms.sentences import Sentence

# 适用／受 choose a law; 依据／按照 only with a named one (依据中华人民共和国法律解释), not 所依据的法律 (any law).
_LAW_RE = re.compile(
    r"(?:(?:适用|受)(?P<law>[^，。；：]{0,16}?)|(?:依据|依照|按照)(?P<named>[^，。；：的]{0,12}?(?:国|州|省|地区)))"
    r"(?:的)?法律(?:法规)?(?:管辖|解释|的规定)?"
)
_PRC_LAW_RE = re.compile(r"(?:中华人民共和国|中国|国家)的?(?:有关)?法律")
_LAW_CONTEXT_RE = re.compile(r"本合同|本协议|合同的订立|解释|争议|履行")
_COURT_RE = re.compile(r"(?:向|由|提交|提请|交|在|诉至|诉诸)(?P<name>[^，。；、]{0,20}?(?:人民)?法院)")
_ARBITRATION_RE = re.compile(
    r"(?:向|由|提交|提请|交|申请)?(?P<name>[^，。；、向由交]{0,24}?仲裁(?:委员会|院|中心|机构))"
)
_BLANK_RE = re.compile(BLANK_PATTERN)


def law_terms(sentence: Sentence) -> list[KeyTerm]:
    """The governing law (中华人民共和国法律 → PRC law)."""
    text = sentence.text
    named = _PRC_LAW_RE.search(text) if "适用" in text else None
    if named is not None:  # 适用于合同文件的法律是国家的法律: the law is named, whatever the phrasing
        return [sentence.term("governing_law", "PRC law", _span(sentence, named), 0.8, "law.named")]
    match = _LAW_RE.search(text)
    if match is None or not _LAW_CONTEXT_RE.search(text) or "法律责任" in text[match.start() : match.end() + 2]:
        return []
    law = (match["law"] or match["named"] or "").strip()
    if re.search(r"中华人民共和国|中国|国家", law) or not law:
        value = "PRC law"
    elif _BLANK_RE.search(law):
        return [KeyTerm("governing_law", None, *_span(sentence, match), text, 0.8, "law.blank", BLANK)]
    else:
        value = f"{law}法律"
    return [sentence.term("governing_law", value, _span(sentence, match), 0.85, "law.chosen")]


def _span(sentence: Sentence, match: re.Match[str]) -> tuple[int, int]:
    return sentence.start + match.start(), sentence.start + match.end()


def _forum_name(name: str) -> str:
    name = re.sub(r"^(?:双方|合同|有管辖权的?|当地|所在地的?)?", "", name.strip(" 　"))
    return re.sub(r"\s+", "", name)


def forum_terms(sentence: Sentence) -> list[KeyTerm]:
    """The forum: a court (甲方所在地人民法院) or an arbitration body (上海仲裁委员会); ＿＿仲裁委员会 is blank."""
    text = sentence.text
    if not re.search(r"争议|纠纷|诉讼|起诉|仲裁|管辖", text):
        return []
    terms: list[KeyTerm] = []
    for kind, pattern in (("arbitration", _ARBITRATION_RE), ("court", _COURT_RE)):
        match = pattern.search(text)
        if match is None or (kind == "arbitration" and re.search(r"仲裁(?:裁决|结果|费)", match.group())):
            continue
        if re.search(r"[不没约根按就则]|双方" + ("|仲裁" if kind == "court" else ""), match["name"]):
            continue  # 不在本合同中约定仲裁机构, 则按被诉国仲裁机构: no body chosen
        start, end = match.span("name")
        span = (sentence.start + start, sentence.start + end)
        if _BLANK_RE.search(match["name"]):
            terms.append(KeyTerm("forum", None, *span, text, 0.8, f"forum.{kind}.blank", BLANK))
        else:
            terms.append(sentence.term("forum", Forum(kind, _forum_name(match["name"])), span, 0.8, f"forum.{kind}"))
    return terms
