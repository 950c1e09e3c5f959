"""Key terms of time: signing, effective and expiry dates, term, renewal, notice, probation and non-compete."""

from __future__ import annotations

import re

from rules.contract_terms.blanks import BLANK_PATTERN
from rules.contract_terms.dates import find_dates
from rules.contract_terms.durations import find_durations
from rules.contract_terms.model import BLANK, Duration, Found, KeyTerm, Renewal
from rules.contract_terms.sentences import Sentence

_ISO_DATE_HINT_RE = re.compile(r"[0-9][-/.][0-9]")
_SIGNING_RE = re.compile(r"签\s*订|签\s*署|签\s*约|签\s*字|订\s*立")
_EFFECTIVE_RE = re.compile(r"生效|起施行|起执行")
_EXPIRY_RE = re.compile(r"届满|到期|终止|止")
_RANGE_RE = re.compile(r"至|到|—|－|-|~|～")
_TERM_RE = re.compile(
    r"(?:合同|协议|租赁|承包|借款|贷款|委托(?:管理)?|服务|聘用|许可|保险|使用|经营|合作|保管|劳动合同)的?"
    r"(?:期限|有效期|期)(?!满|内|间|届)|租期(?!满|内)|有效期限|聘期"
)
_OTHER_PERIOD_RE = re.compile(r"试用期|竞业|保修期|质保期|保证期间|免租期|装修期")
_FROM_EVENT_RE = re.compile(r"自[^，。；]{0,12}之日起")
_RENEWAL_RE = re.compile(r"续签|续约|续租|续订|续期|续聘|自动延续|自动顺延|自动延长")
_NOTICE_RE = re.compile(r"提前(?P<gap>[^，。；]{0,3}?)$")
_NOTICE_AFTER_RE = re.compile(r"^[^，。；]{0,3}(?:以?书面)?(?:形式)?(?:通知|告知|提出|申请)")
_BLANK_AFTER_CUE_RE = re.compile(rf"[^，。；]{{0,6}}?(?P<slot>{BLANK_PATTERN}|(?<=[为：:])[ 　]+(?=[个月年天日周]))")
_PROBATION_RE = re.compile(r"试用期(?!间|内|满|结束|届满)")
_NON_COMPETE_RE = re.compile(r"竞业限制|竞业禁止|同业竞争")
_LENGTH_UNITS = frozenset({"year", "month", "week", "day"})


def date_terms(sentence: Sentence) -> list[KeyTerm]:
    """Signing, effective and expiry dates of one sentence; a blank date is a blank term."""
    text = sentence.text
    if "年" not in text and not _ISO_DATE_HINT_RE.search(text):
        return []  # every date this module reads has a year
    dates = find_dates(text)
    if not dates:
        return []
    terms: list[KeyTerm] = []
    has_term = _TERM_RE.search(text) and not _OTHER_PERIOD_RE.search(text)
    if has_term and len(dates) >= 2 and _RANGE_RE.search(text, dates[0].end, dates[1].start):
        for kind, date in (("effective_date", dates[0]), ("expiry_date", dates[1])):
            terms.append(_date_term(sentence, kind, date, 0.9, "date.term_range"))
        return terms
    for date in dates:
        before = text[max(0, date.start - 12) : date.start]
        after = re.split(r"[，,]", text[date.end : date.end + 16])[0]  # the date's own clause
        if has_term and re.search(r"(?:至|到)$", before):  # 从签署之日起到＿年＿月＿日止
            terms.append(_date_term(sentence, "expiry_date", date, 0.8, "date.expiry"))
        elif _EFFECTIVE_RE.search(after) or _EFFECTIVE_RE.search(before[-3:]):
            terms.append(_date_term(sentence, "effective_date", date, 0.85, "date.effective"))
        elif _SIGNING_RE.search(before) or _SIGNING_RE.search(after[: 16 if before.endswith("于") else 4]):
            terms.append(_date_term(sentence, "signing_date", date, 0.85, "date.signing"))
        elif has_term and _EXPIRY_RE.search(after[:4]):
            terms.append(_date_term(sentence, "expiry_date", date, 0.8, "date.expiry"))
    return terms


def _date_term(sentence: Sentence, kind: str, date: Found[str | None], confidence: float, rule_id: str) -> KeyTerm:
    start, end, value = date.start, date.end, date.value
    span = (sentence.start + start, sentence.start + end)
    term = sentence.term(kind, value, span, confidence, rule_id)
    if value is None:
        return KeyTerm(kind, None, span[0], span[1], sentence.text, 0.85, rule_id, BLANK)
    return term


def _lengths(sentence: Sentence, units: frozenset[str] = _LENGTH_UNITS) -> list[tuple[int, int, Duration]]:
    found = find_durations(sentence.text)
    return [(d.start, d.end, d.value) for d in found if d.value.unit in units]


def term_terms(sentence: Sentence) -> list[KeyTerm]:
    """The contract's term (合同期限三年, 自签订之日起三年) and its renewal."""
    text = sentence.text
    terms: list[KeyTerm] = []
    cue = _TERM_RE.search(text) or _FROM_EVENT_RE.search(text)
    if cue and not _OTHER_PERIOD_RE.search(text) and not _RENEWAL_RE.search(text):
        lengths = [
            d
            for d in _lengths(sentence, frozenset({"year", "month"}))
            if cue.start() - 2 <= d[0] <= cue.end() + 16
            and not re.search(r"(?:提前|每|超过|超出)$", text[: d[0]])
            and not re.match(r"[一二两三四五六七八九十]?[付次]", text[d[1] :])
        ]
        if lengths and (_TERM_RE.search(text) or re.search(r"有效|期限", text)):
            start, end, value = lengths[0]
            span = (sentence.start + start, sentence.start + end)
            terms.append(sentence.term("term", value, span, 0.85, "term.length"))
        elif (
            _TERM_RE.search(text)
            and re.search(r"[＿_ 　]{1,}\s*(?:个月|年)", text[cue.end() :])
            and (blank := sentence.blank_term("term", "term.blank", units="年月"))
        ):
            terms.append(blank)
    renewal = _RENEWAL_RE.search(text)
    if renewal and re.search(r"可|应|须|需|自动|协商|同意|提前|期满|到期|届满", text):  # not a bare heading
        automatic = "自动" in text and not re.search(r"不(?:得|能|会)?自动|非自动", text)
        notice = _notice(sentence)
        span = (sentence.start + renewal.start(), sentence.start + renewal.end())
        terms.append(sentence.term("renewal", Renewal(automatic, notice[2] if notice else None), span, 0.8, "renewal"))
    return terms


def _notice(sentence: Sentence) -> tuple[int, int, Duration] | None:
    """The period a party must give notice before acting: 提前三十日书面通知, 提前五个工作日通知."""
    if "提前" not in sentence.text:
        return None
    for start, end, value in _lengths(sentence, frozenset({"month", "week", "day", "workday"})):
        before = sentence.text[max(0, start - 6) : start]
        if _NOTICE_RE.search(before) and (
            _NOTICE_AFTER_RE.match(sentence.text[end:])
            or re.match(r"[^，。；]{0,2}(?:内|前|以前)", sentence.text[end:])
        ):
            return start, end, value
    return None


def notice_terms(sentence: Sentence) -> list[KeyTerm]:
    """Notice periods (提前三十日书面通知); 提前＿天通知 is a blank one."""
    if _RENEWAL_RE.search(sentence.text):
        return []  # the renewal term carries its notice
    notice = _notice(sentence)
    if notice is not None:
        span = (sentence.start + notice[0], sentence.start + notice[1])
        return [sentence.term("notice_period", notice[2], span, 0.85, "notice.period")]
    if (
        re.search(r"提前[^，。；]{0,2}[＿_ 　]+\s*(?:个工作日|个月|日|天|周)", sentence.text)
        and "通知" in sentence.text
    ):
        blank = sentence.blank_term("notice_period", "notice.blank")
        return [blank] if blank else []
    return []


def labour_terms(sentence: Sentence) -> list[KeyTerm]:
    """A labour contract's probation and non-compete periods."""
    terms: list[KeyTerm] = []
    # The length follows its cue closely (试用期为二个月, 竞业限制期限为两年); 试用期的最后一天 is no length.
    for kind, cue, units, reach in (
        ("probation", _PROBATION_RE, frozenset({"month", "week", "day", "year"}), 8),
        ("non_compete", _NON_COMPETE_RE, frozenset({"month", "year"}), 16),
    ):
        match = cue.search(sentence.text)
        if match is None:
            continue
        near = [d for d in _lengths(sentence, units) if match.end() <= d[0] <= match.end() + reach]
        lengths = [d for d in near if not re.search(r"最后|第|前|后$", sentence.text[match.end() : d[0]])]
        blank = _BLANK_AFTER_CUE_RE.match(sentence.text, match.end())
        if lengths and not (blank and blank.start("slot") < lengths[0][0]):
            start, end, value = lengths[0]
            span = (sentence.start + start, sentence.start + end)
            terms.append(sentence.term(kind, value, span, 0.85, f"{kind}.length"))
        elif blank:
            span = (sentence.start + blank.start("slot"), sentence.start + blank.end("slot"))
            terms.append(KeyTerm(kind, None, *span, sentence.text, 0.85, f"{kind}.blank", BLANK))
    return terms
