"""Is a reply to a citizen fit to send? The checks a hotline's quality desk makes of a 答复 before it goes out.

A reply the platform publishes (on a message board) or sends (SMS, call-back script) should say who handles the
matter, what is being done and by when, about the ticket's own matter and place, in words that are not the same
for every ticket, and it must not hand out personal data or contact details that are not the organisation's.
Each problem comes with its evidence: the words in the reply, or what the reply lacks.

Patterns are written from how government replies are drafted (主办单位, 处理措施, 办理时限 are the parts a reply
template asks for), not from any reply in particular.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rules.safety import output_leaks, output_links
from rules.tickets.places import place_entities, place_of_words

# A body that takes a matter on: a named government or public-service organ.
_ORGAN = re.compile(
    r"[\u4e00-\u9fff]{1,14}?(?:委员会|管理局|分局|局(?!面|势|限)|委(?!托|屈|婉|员)|办公室|办事处|中心|街道|"
    r"人民政府|政府|居委会|村委会|社区|公司|供电所|派出所|司法所|卫生院|法院|检察院|大队|支队|中队|管理处|服务站|"
    r"物业)"
)
# What is being done: the verbs of a handling step (核实 a fact, 整改 a fault, 约谈 an operator …).
_STEP = re.compile(
    r"核实|核查|调查|调查处理|现场|到场|上门|派员|安排|整改|维修|抢修|修复|更换|疏通|清理|清运|清除|拆除|"
    r"查处|执法|检查|巡查|约谈|责令|督促|督办|协调|监测|检测|回访|跟进|立案|处罚|限期|封堵|恢复"
)
# By when: a span of time (3个工作日内, 24小时内, 两周内), a date (12月5日前), or a set day.
_NUMBER = r"(?:\d+|[一二两三四五六七八九十百]+)"
_TIME = re.compile(
    rf"{_NUMBER}\s*个?\s*(?:工作日|自然日|小时|天|日|周|星期|个月|月)\s*(?:内|以内|之内|前)"
    rf"|{_NUMBER}\s*月\s*{_NUMBER}\s*[日号](?:前|之前|以前)?|(?:今天|今日|明天|明日|本周内|当日|当天)"
)
# Words every reply and every complaint share: they say nothing about this ticket's matter.
_GENERIC = (
    "您好您反映的问题情况已收悉收到感谢您的来电来信关注监督支持理解配合我们将会尽快及时依法相关部门单位"
    "办理处理答复回复结果进行核实转交交由负责工作人员市民群众诉求热线平台工单投诉举报请求希望要求解决"
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Fewer words of its own matter than this and a reply reads the same for every ticket.
MIN_SHARED_WORDS = 2


@dataclass(frozen=True)
class ReplyProblem:
    """One reason a reply is not fit to send: a stable code, what is wrong, and the words that show it (`start`
    and `end` in the reply; None where the problem is what the reply lacks)."""

    code: str
    message: str
    evidence: str
    start: int | None = None
    end: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "evidence": self.evidence, "start": self.start,
                "end": self.end}  # fmt: skip


def _bigrams(text: str) -> set[str]:
    """The character pairs of the text's Chinese runs."""
    runs = re.findall(r"[\u4e00-\u9fff]+", text)
    return {run[i : i + 2] for run in runs for i in range(len(run) - 1)}


_GENERIC_BIGRAMS = _bigrams(_GENERIC)


def _places(text: str) -> list[tuple[str, str, int, int]]:
    """(words, key, start, end) of each place the text names."""
    found = []
    for entity in place_entities(text):
        if entity.is_pii:
            continue
        place = place_of_words(entity.text, street=entity.label == "ADDRESS")
        found.append((entity.text, place.key, entity.start, entity.end))
    return found


def _place_problems(reply: str, ticket: str) -> list[ReplyProblem]:
    """Places the reply names that the ticket does not: a reply about somewhere else."""
    named = {key for _, key, _, _ in _places(ticket)} | {words for words, _, _, _ in _places(ticket)}
    problems = []
    for words, key, start, end in _places(reply):
        if key in named or words in named or words in ticket or key in ticket:
            continue
        message = f"the reply names {words}, a place the ticket does not mention"
        problems.append(ReplyProblem("reply_wrong_place", message, words, start, end))
    return problems


def _category_problems(reply: str, ticket: str, category: str | None, categories: Iterable[str]) -> list[ReplyProblem]:
    """A category of the taxonomy the reply files the ticket under (按“X”类, 属于X类, X方面的问题) that is not the
    ticket's. A name inside a longer word (民政 in 人民政府) or in the citizen's own words files nothing."""
    if not category:
        return []
    problems = []
    for name in categories:
        if name == category or name in category or name in ticket:
            continue
        filed = re.compile(rf"[“\"「]?{re.escape(name)}[”\"」]?(?:类|方面|领域|范畴)")
        for match in filed.finditer(reply):
            message = f"the reply files the ticket under {name}, but it is a {category} ticket"
            start = match.start() + match.group().index(name)
            problems.append(ReplyProblem("reply_wrong_category", message, name, start, start + len(name)))
    return problems


def _contact_problems(reply: str, ticket: str, own_contacts: Iterable[str]) -> list[ReplyProblem]:
    """Personal data, and contact details (phone, e-mail, link, messenger) that are not the organisation's."""
    own = {re.sub(r"\D", "", c) or c for c in own_contacts} | set(own_contacts)
    problems = []
    for entity in [*output_leaks(reply), *output_links(reply, source=ticket)]:
        words = reply[entity.start : entity.end]
        if words in own or re.sub(r"\D", "", words) in own:
            continue
        what = "personal data" if entity.is_pii else "a contact detail that is not the organisation's"
        message = f"the reply gives {what} ({entity.label})"
        problems.append(ReplyProblem("reply_contact_leak", message, words, entity.start, entity.end))
    return problems


def reply_check(
    reply: str,
    *,
    ticket: str,
    category: str | None = None,
    department: str | None = None,
    categories: Iterable[str] = (),
    own_contacts: Iterable[str] = (),
) -> list[ReplyProblem]:
    """Every reason `reply` to `ticket` is not fit to send as it is; empty when it is.

    `category` and `department` are the ticket's routing, `categories` the taxonomy's names a reply might file it
    under, `own_contacts` the organisation's own numbers and addresses (a reply may give those)."""
    problems: list[ReplyProblem] = []
    if not (department and department in reply) and not _ORGAN.search(reply):
        problems.append(ReplyProblem("reply_no_department", "the reply names no department that handles it", ""))
    if not _STEP.search(reply):
        problems.append(ReplyProblem("reply_no_next_step", "the reply says nothing of what will be done", ""))
    if not _TIME.search(reply):
        problems.append(ReplyProblem("reply_no_time", "the reply gives no time by which it will be handled", ""))
    shared = (_bigrams(reply) & _bigrams(ticket)) - _GENERIC_BIGRAMS
    if len(shared) < MIN_SHARED_WORDS and _CJK.search(reply):
        said = "、".join(sorted(shared)) or "nothing"
        message = f"the reply shares {said} with the ticket: it could answer any ticket"
        problems.append(ReplyProblem("reply_boilerplate", message, said))
    problems += _place_problems(reply, ticket)
    problems += _category_problems(reply, ticket, category, categories)
    problems += _contact_problems(reply, ticket, own_contacts)
    return problems
