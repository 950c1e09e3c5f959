"""Street addresses: anchored on a cue (住址：, 位于) or on a chain of administrative regions."""

from __future__ import annotations

import re

from rules.entities.model import Entity

# Cues that introduce where a person lives make the address personal data; company seats are not.
_PERSONAL_CUES_WORDS = "家庭住址 现住址 住址 家住 住在 居住在 现居 现住"
_PERSONAL_CUES = tuple(_PERSONAL_CUES_WORDS.split())
_OTHER_CUES_WORDS = "通讯地址 联系地址 注册地址 办公地址 营业地址 送达地址 地址 住所地 住所 位于 坐落于 坐落在"
_OTHER_CUES = tuple(_OTHER_CUES_WORDS.split())
_CUES = sorted(_PERSONAL_CUES + _OTHER_CUES, key=len, reverse=True)

_STREET_WORDS = "路|街|大道|巷|弄|胡同|村|小区|社区|花园|苑|大厦|公寓|广场|号院|号楼|栋|幢|单元|室|号|组"
_UNIT_CHAIN = r"(?:[0-9０-９一二三四五六七八九十甲乙丙丁A-Za-z-]+(?:号楼|号院|号|栋|幢|单元|层|楼|室|组|座))*"
# The body stops at punctuation and must reach a street-level word; lazy so trailing chatter is not taken.
_BODY = rf"[^\s，,。；;！!？?、）)“”\"：:的了是我附旁对]{{0,40}}?(?:{_STREET_WORDS}){_UNIT_CHAIN}"
# Further street-level segments (…中关村|大街|1号) may follow; neither part crosses chatter such as 附近的.
_MORE = rf"(?:[^\s，,。；;！!？?、）)“”\"：:的了是在我附旁对]{{0,12}}?(?:{_STREET_WORDS}){_UNIT_CHAIN})*"
_CUED_RE = re.compile(rf"(?P<cue>{'|'.join(_CUES)})[为是在]?[：:\s]?(?P<address>{_BODY}{_MORE})")
_BODY_RE = re.compile(_BODY + _MORE)
_STREET_RE = re.compile(_STREET_WORDS)
_REGION_SUFFIX_RE = re.compile("[省市区县镇乡]")


def find_cued_addresses(text: str, personal_only: bool = False) -> list[Entity]:
    """Return addresses introduced by a cue; those after 住址/家住 … are marked personal."""
    found: list[Entity] = []
    for match in _CUED_RE.finditer(text):
        personal = match["cue"] in _PERSONAL_CUES
        if personal_only and not personal:
            continue
        rule_id = "address.personal" if personal else "address.cued"
        start, end = match.span("address")
        found.append(Entity("ADDRESS", start, end, match["address"], None, personal, rule_id))
    return found


def address_after_regions(text: str, start: int, end: int) -> Entity | None:
    """Return an address that begins with the region chain text[start:end] and reaches a street, or None."""
    body = _BODY_RE.match(text, end)
    if body is None or body.end() == end:
        return None
    return Entity("ADDRESS", start, body.end(), text[start : body.end()], None, False, "address.region_chain")


def address_mask_start(address: str) -> int:
    """Return where masking should begin: after the last region (…市…区) that precedes the street part."""
    street = _STREET_RE.search(address)
    head = address[: street.start()] if street else address
    regions = [match.end() for match in _REGION_SUFFIX_RE.finditer(head)]
    # Without a region in front, the whole address is street level and is masked entirely.
    return regions[-1] if regions else 0
