"""The places a ticket names (district, town or street office, community or village, road, housing estate), and
whether two tickets name different places.

A place is its level and its name: the characters before an administrative or address word (A3区, 浯溪镇,
鲢鱼塘村, 中山路, 高升家园). Names are read right to left from the place word up to a function word or
punctuation, so "住在幸福小区" and "反映幸福小区" may keep different heads ("幸福", "反映幸福"): two names are the
same place when one ends the other or they share their last two characters. Two tickets name different places
when, at some level, each names a place the other does not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from rules.normalize.width import fold_text

# Levels, coarse to fine, each with its place words (longest first when matched). A word ending another level's
# word (小区 ends in 区, 新村 in 村, 街道 starts with 街) is matched at its own level first.
LEVEL_WORDS: dict[str, tuple[str, ...]] = {
    "city": ("自治州", "地区", "市"),
    "district": ("新区", "区", "县", "旗"),
    "town": ("街道办事处", "街道办", "街道", "镇", "乡"),
    "community": ("居委会", "村委会", "社区", "村", "组"),
    "road": ("大道", "大街", "路", "街", "巷", "弄"),
    "estate": ("小区", "花园", "家园", "公寓", "大厦", "广场", "新村", "新城", "苑", "园", "楼盘"),
}
LEVELS = tuple(LEVEL_WORDS)
# Characters that end a name read leftwards: punctuation, pronouns, prepositions and verbs that stand before a
# place in a sentence (住在…, 位于…, 我们…), and determiners (该, 本, 这个, 附近).
_STOP = set(
    "的了在是我你他她它们住和与及跟同向到从对于位该本这那个此各每某全附旁近处把被让给为就都也还又很已将要会能可以有没无不请求称叫即其等或及至"
)
_NAME_CHAR = re.compile(r"[\u4e00-\u9fffA-Za-z0-9]")
_MAX_NAME = 8
# The place word after these is a common noun, not a place (超市, 城市, 农村, 马路, 城乡, 景区 …).
_NOT_A_PLACE_BEFORE: dict[str, str] = {
    "市": "超城都菜夜门股楼黑上开全本我该此县",
    "区": "小社园校景城辖片发矿山郊市地灾老宅厂营务战军禁盲误",
    "县": "郡",
    "镇": "城乡重坐",
    "乡": "城家老下返回故异他思",
    "村": "农山乡渔全本该我",
    "组": "小班分本该全",
    "路": "马道公铁线思出走退门电网水陆航套后来去前",
    "街": "上逛沿满临",
    "园": "公乐花校家果菜茶动物植陵墓田",
    "苑": "文艺",
}
_NOT_A_PLACE_AFTER: dict[str, str] = {"市": "场民值", "区": "别域分", "路": "费线过上灯段", "街": "道头坊"}
_PLACE_WORD = re.compile("|".join(sorted({w for ws in LEVEL_WORDS.values() for w in ws}, key=len, reverse=True)))
_LEVEL_OF = {word: level for level, words in LEVEL_WORDS.items() for word in words}
# An anonymised unit (A市, A3区, K3县): one capital and digits; such a name is whole, never read further left.
_ANONYMISED = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][0-9]{0,3}$")
# A name read leftwards ends at the last character of a higher unit (…市|岳麓区, …区|幸福小区).
_UNIT_END = set("省市州区县镇乡道村")
# A city or district is named only as an anonymised code or right after a higher unit (湖南省长沙市, 长沙市岳麓区):
# alone, "…县" and "…区" are as often a generic word after a verb (急盼县领导, 希望区里) as a name.
_CHAINED = {"city": set("省州"), "district": set("省市州")}


@dataclass(frozen=True, order=True)
class Place:
    """One place a ticket names: its level (city … estate) and its name without the place word."""

    level: str
    name: str
    word: str  # the place word it was named with (区, 小区, 路 …)

    def same_as(self, other: Place) -> bool:
        """Whether two names at one level name the same place (one ends the other, or two last characters)."""
        if self.level != other.level:
            return False
        a, b = self.name, other.name
        if a.endswith(b) or b.endswith(a):
            return min(len(a), len(b)) >= 2 or a == b
        return len(a) >= 2 and len(b) >= 2 and a[-2:] == b[-2:] and not _ANONYMISED.search(a)


def _name_before(text: str, end: int) -> str:
    """The name read leftwards from `end` (where the place word starts)."""
    anonymised = _ANONYMISED.search(text[max(0, end - 5) : end])
    if anonymised:
        return anonymised.group()
    start = end
    while start > 0 and end - start < _MAX_NAME:
        char = text[start - 1]
        if char in _STOP or char in _UNIT_END or not _NAME_CHAR.match(char):
            break
        start -= 1
    return text[start:end]


@dataclass(frozen=True)
class PlaceMention:
    """Where a place is named: the place, and the span of its name and place word in the text."""

    place: Place
    start: int
    end: int


def place_mentions(text: str) -> list[PlaceMention]:
    """Every mention of a place in the text, in order; a generic use of a place word (超市, 我们小区, 马路, 急盼县领导)
    names none."""
    folded = fold_text(text)
    found: list[PlaceMention] = []
    for match in _PLACE_WORD.finditer(folded):
        word, start, end = match.group(), match.start(), match.end()
        before = folded[start - 1] if start else ""
        after = folded[end] if end < len(folded) else ""
        if (before and before in _NOT_A_PLACE_BEFORE.get(word, "")) or (
            after and after in _NOT_A_PLACE_AFTER.get(word, "")
        ):
            continue
        name, level = _name_before(folded, start), _LEVEL_OF[word]
        anonymised = bool(_ANONYMISED.search(name))
        head = start - len(name)
        if level in _CHAINED and not anonymised and (head == 0 or folded[head - 1] not in _CHAINED[level]):
            continue
        if len(name) >= 2 or anonymised:
            found.append(PlaceMention(Place(level, name, word), head, end))
    return found


def ticket_places(text: str) -> frozenset[Place]:
    """Every place the text names."""
    return frozenset(mention.place for mention in place_mentions(text))


def places_differ(a: Iterable[Place], b: Iterable[Place]) -> bool:
    """Whether two tickets name different places: at some level each names a place the other does not (one
    ticket naming a street and its estate, the other only the estate, is not a difference)."""
    a, b = tuple(a), tuple(b)
    for level in LEVELS:
        here_a = [p for p in a if p.level == level]
        here_b = [p for p in b if p.level == level]
        only_a = any(not any(x.same_as(y) for y in here_b) for x in here_a)
        only_b = any(not any(y.same_as(x) for x in here_a) for y in here_b)
        if here_a and here_b and only_a and only_b:
            return True
    return False


def places_shared(a: Iterable[Place], b: Iterable[Place]) -> bool:
    """Whether two tickets name one same place below the city (a district, town, community, road or estate)."""
    b = tuple(b)
    return any(x.level != "city" and x.same_as(y) for x in a for y in b)


def place_keys(places: Iterable[Place]) -> list[str]:
    """Places as stored beside a ticket's signature ("level:name:word"), sorted."""
    return sorted(f"{p.level}:{p.name}:{p.word}" for p in places)


def places_from_keys(keys: Iterable[str]) -> frozenset[Place]:
    """The places stored by `place_keys` (keys that do not parse are skipped)."""
    out = set()
    for key in keys:
        parts = str(key).split(":", 2)
        if len(parts) == 3 and parts[0] in LEVEL_WORDS:
            out.add(Place(*parts))
    return frozenset(out)
