"""Regex finders for non-personal entities: money, percentages, dates, durations, named parties, regions."""

from __future__ import annotations

import re

from rules.amounts import ascii_digits, find_amounts, find_percentages, parse_number
from rules.contract_terms.dates import written_dates
from rules.entities.model import Entity

_CN_SMALL = "一二三四五六七八九十"
_DURATION_UNITS = {
    "个工作日": "workday", "工作日": "workday", "个自然日": "day", "自然日": "day", "个月": "month",
    "个小时": "hour", "小时": "hour", "年": "year", "周": "week", "星期": "week", "日": "day", "天": "day",
}  # fmt: skip
_DURATION_RE = re.compile(
    rf"(?P<n>(?<![0-9.])[0-9]{{1,3}}(?:\.[0-9])?|[{_CN_SMALL}百两半]{{1,4}})\s?"
    rf"(?P<unit>{'|'.join(sorted(_DURATION_UNITS, key=len, reverse=True))})(?P<within>以内|之内|内)?"
)
_PARTY_ROLE_WORDS = (
    "甲方 乙方 丙方 丁方 委托方 受托方 委托人 受托人 出租方 承租方 出租人 "
    "承租人 发包人 承包人 发包方 承包方 买方 卖方 买受人 出卖人 供方 需方 "
    "供货方 采购方 用人单位 劳动者 借款人 贷款人 出借人 保证人 抵押人 "
    "抵押权人 转让方 受让方 许可方 被许可方 托运人 承运人 建设单位 施工单位 "
    "服务方 投资方"
)
PARTY_ROLES = tuple(_PARTY_ROLE_WORDS.split())
_ROLE_ALTERNATION = "|".join(sorted(PARTY_ROLES, key=len, reverse=True))
# 委托方（以下简称甲方）：某某公司 — the name follows the colon and ends at punctuation or space, or where the
# next party's definition begins (a line join can glue 某某公司 to 受托方（以下简称乙方）：).
_ROLE_DEFINITION = rf"(?:{_ROLE_ALTERNATION})(?:[（(][^）)\n]{{0,12}}[）)])?[ \t　]*[：:]"
_PARTY_NAME_RE = re.compile(
    rf"(?P<role>{_ROLE_ALTERNATION})(?:[（(][^）)\n]{{0,12}}[）)])?[ \t　]*[：:][ \t　]*"
    rf"(?P<name>(?:(?!{_ROLE_DEFINITION})[^\s，,。；;：:（(）)＿_…\-—]){{2,40}})"
)
# Form labels and seals are what a blank form prints after 甲方：, never a name.
_NOT_A_NAME_RE = re.compile(
    rf"^(?:{_ROLE_ALTERNATION})|签字|签章|盖章|公章|日期|年月日|^[0-9]|^章|^(?:姓名|名称|地址|住所|电话|手机|联系|身份证)"
)
_ANONYMISED_REGION_RE = re.compile(r"(?<![A-Za-z0-9])[A-Z][0-9]{0,3}(?:省|市|区|县|镇|乡|街道|村)")
# Inside a chain (北京市|海淀区|学院路街道) the next unit starts right where the previous one ended.
# 小区 / 社区 / 园区 end in 区 but are places inside a district, not districts.
_REGION_LINK_RE = re.compile(
    r"[\u4e00-\u9fff]{2,3}?(?:自治州|地区|市|(?<![小社园校景])区|县|旗)|[\u4e00-\u9fff]{2,4}?(?:街道|镇|乡)"
)


def find_money(text: str) -> list[Entity]:
    """Return money entities with value 'CUR amount' (e.g. 'CNY 1200000')."""
    return [
        Entity("MONEY", m.start, m.end, m.raw, f"{m.currency} {m.value}", False, "money") for m in find_amounts(text)
    ]


def find_percents(text: str) -> list[Entity]:
    """Return percentage entities with the value in percent."""
    return [Entity("PERCENT", m.start, m.end, m.raw, str(m.value), False, "percent") for m in find_percentages(text)]


def find_dates(text: str) -> list[Entity]:
    """Return dates (2023年5月1日, 二〇二三年五月一日, 2023-05-01, 每月15日) with ISO values where known."""
    return [Entity("DATE", d.start, d.end, d.raw, d.value, False, f"date.{d.form}") for d in written_dates(text)]


def find_durations(text: str) -> list[Entity]:
    """Return durations (三年, 24个月, 30日内, 十五个工作日) with value 'N unit'."""
    found: list[Entity] = []
    for match in _DURATION_RE.finditer(text):
        number = match["n"]
        if number == "半":
            amount: str | None = "0.5"
        else:
            parsed = parse_number(ascii_digits(number))
            amount = None if parsed is None else str(parsed)
        if amount is None or amount == "0":
            continue
        value = f"{amount} {_DURATION_UNITS[match['unit']]}"
        rule_id = "duration.within" if match["within"] else "duration"
        found.append(Entity("DURATION", match.start(), match.end(), match.group(), value, False, rule_id))
    return found


def find_party_names(text: str) -> list[Entity]:
    """Return the named party after a role label (甲方：…), with the role as value."""
    found: list[Entity] = []
    for match in _PARTY_NAME_RE.finditer(text):
        name = match["name"]
        if _NOT_A_NAME_RE.search(name):
            continue
        start, end = match.span("name")
        found.append(Entity("PARTY", start, end, name, match["role"], False, "party.named"))
    return found


def find_anonymised_regions(text: str) -> list[Entity]:
    """Return anonymised regions used in hotline data (A市, A3区, D12市)."""
    return [
        Entity("REGION", m.start(), m.end(), m.group(), None, False, "region.anonymised")
        for m in _ANONYMISED_REGION_RE.finditer(text)
    ]


def region_links_after(text: str, end: int) -> list[Entity]:
    """Return the administrative units directly continuing a region that ends at `end` (…市海淀区…街道)."""
    links: list[Entity] = []
    while (match := _REGION_LINK_RE.match(text, end)) is not None:
        links.append(Entity("REGION", match.start(), match.end(), match.group(), None, False, "region.chain"))
        end = match.end()
    return links
