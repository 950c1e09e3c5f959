"""The reply check: what a hotline's quality desk asks of a 答复 before it goes out, each problem with its evidence.

The replies here are written for the test, in the shapes government replies take (主办单位, 处理措施, 办理时限)
and the ways they go wrong (a form letter, another district, another bureau's category, a private number)."""

from __future__ import annotations

import pytest

from rules.tickets.reply_check import reply_check
from rules.tickets.taxonomy import load_taxonomy

TICKET = "我住在A市B区幸福路12号，楼下的烧烤店每天晚上油烟很大，熏得家里没法开窗，多次反映至今未解决。"
GOOD = (
    "您好！您反映的B区幸福路12号烧烤店油烟扰民问题已收悉，已转交B区生态环境局办理。该局将于3个工作日内派员到现场"
    "核查，责令商户整改，并将处理结果答复您。"
)
FORM_LETTER = "您好！您反映的问题已收悉，我们将尽快核实并转交相关部门办理，办理结果将及时答复您。"


def codes(reply: str, **routing: object) -> list[str]:
    arguments = {"ticket": TICKET, "category": "环境保护", "department": "B区生态环境局",
                 "categories": load_taxonomy().level1_names, **routing}  # fmt: skip
    return [problem.code for problem in reply_check(reply, **arguments)]  # type: ignore[arg-type]


def test_a_reply_naming_the_bureau_the_step_the_time_the_place_and_the_matter_is_fit_to_send() -> None:
    assert codes(GOOD) == []


def test_a_form_letter_names_no_bureau_no_time_and_nothing_of_the_ticket() -> None:
    problems = reply_check(FORM_LETTER, ticket=TICKET)
    assert [p.code for p in problems] == ["reply_no_department", "reply_no_time", "reply_boilerplate"]
    assert all(p.message for p in problems)


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("您反映的幸福路烧烤店油烟问题，B区生态环境局将派员现场核查。", "reply_no_time"),
        ("您反映的幸福路烧烤店油烟问题已转交B区生态环境局，3个工作日内答复您。", "reply_no_next_step"),
        ("您反映的幸福路烧烤店油烟问题，我们将于12月5日前到现场核查。", "reply_no_department"),
    ],
)
def test_each_missing_part_is_named(reply: str, code: str) -> None:
    assert codes(reply) == [code]


def test_a_reply_about_another_place_is_caught_with_its_words() -> None:
    reply = GOOD.replace("B区幸福路12号", "C区和平路8号")
    [problem] = reply_check(reply, ticket=TICKET, department="B区生态环境局")
    assert problem.code == "reply_wrong_place" and "C区" in problem.evidence
    assert problem.start is not None and reply[problem.start : problem.end] == problem.evidence


def test_a_reply_filing_the_ticket_under_another_category_is_caught() -> None:
    reply = GOOD.replace("答复您。", "答复您。此件按城乡建设类办理。")
    [problem] = reply_check(reply, ticket=TICKET, category="环境保护", categories=load_taxonomy().level1_names)
    assert problem.code == "reply_wrong_category" and reply[problem.start : problem.end] == "城乡建设"
    assert codes(GOOD + "感谢人民政府的关心。") == [], "民政 inside 人民政府 files nothing"


def test_a_private_number_is_a_leak_and_the_organisations_own_line_is_not() -> None:
    assert codes(GOOD + "如有疑问请联系王科长13900001111。") == ["reply_contact_leak"]
    assert codes(GOOD + "咨询电话0512-66668888。", own_contacts=["0512-66668888"]) == []
    assert codes(GOOD + "详见 http://shorturl.example.top/x 。") == ["reply_contact_leak"]
