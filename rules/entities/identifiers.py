"""Personal identifiers found by one combined regex pass: phones, resident IDs, bank cards, emails, names."""

from __future__ import annotations

import re

from rules.amounts import ascii_digits
from rules.entities.model import Entity
from rules.entities.validators import is_legacy_resident_id, is_resident_id, luhn_valid

_D = "[0-9０-９]"
# Chinese characters count as \w, so "电话13812345678" needs explicit ASCII boundaries rather than \b.
_EDGE_CHARS = frozenset("0123456789０１２３４５６７８９ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# A cheap first pass finds digit clusters; the full alternation then runs only inside them, which is about
# fifty times faster than letting it try every position of mostly Chinese text.
_CLUSTER_RE = re.compile(r"[0-9０-９+(（][0-9０-９Xx \-+()（）]{4,}")
_RIGHT_EDGE = r"(?![0-9０-９A-Za-z])"
_SEP = "[- ]"

# One alternation scanned once over the text; the order matters only where two branches match at one position.
_NUMBER_RE = re.compile(
    rf"""(?:
      (?P<card>{_D}{{4}}(?:{_SEP}{_D}{{4}}){{3}}(?:{_SEP}?{_D}{{1,3}})?)
    | (?P<mobile>(?:\+?86{_SEP}?)?[1１][3-9３-９]{_D}(?:{_SEP}?{_D}{{4}}){{2}})
    | (?P<landline>(?:[(（][0０]{_D}{{2,3}}[)）]\ ?|[0０]{_D}{{2,3}}-){_D}{{7,8}}(?:-{_D}{{1,5}})?)
    | (?P<service>[48４８][0０]{{2}}{_SEP}?{_D}{{3}}{_SEP}?{_D}{{4}}|12345|12315)
    | (?P<run>{_D}{{15,19}}[Xx]?)
    ){_RIGHT_EDGE}""",
    re.VERBOSE,
)
_EMAIL_RE = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,10}"
)
# A name is only taken where a form-like cue announces it and a delimiter ends it within four characters.
_NAME_CUES = "姓名|联系人|投诉人|举报人|来电人|反映人|求助人|申请人|收件人|户主|当事人"
_NAME_RE = re.compile(
    rf"(?:{_NAME_CUES})[为是]?[：:\s]?"
    # 联系人：手机…, 姓名：电话… — the next field's label is no name.
    r"(?!电话|手机|联系|地址|住址|身份|性别|签字|签名|盖章|日期|邮编|传真)"
    r"(?P<name>[\u4e00-\u9fff]{1,2}(?:先生|女士|小姐|师傅)|[\u4e00-\u9fff·]{2,4}?)"
    r"(?=[\s，,。；;、（(：:/]|电话|手机|联系|身份证|住址|地址|性别|[0-9]|$)"
)
# Digits directly followed by a money unit, or preceded by a currency sign, are an amount, not a phone.
_MONEY_AFTER_RE = re.compile(r"(?:\.[0-9]+)?\s?[十百千万亿]*(?:元|圆|块钱|美元)")
_MONEY_BEFORE_RE = re.compile(r"(?:[¥￥$＄]|人民币|RMB|金额|价款|价格)[：:]?\s?$", re.IGNORECASE)

_PHONE_RULES = {
    "mobile": ("phone.mobile", True),
    "landline": ("phone.landline", True),
    "service": ("phone.service", False),
}


def _inside_money(text: str, start: int, end: int) -> bool:
    """Return whether the digits at text[start:end] are part of a money expression."""
    if _MONEY_AFTER_RE.match(text, end):
        return True
    return _MONEY_BEFORE_RE.search(text[max(0, start - 6) : start]) is not None


def _digit_run_entity(raw: str, start: int, end: int, compact: str) -> Entity | None:
    """Classify a bare 15–19 character digit run as a resident ID or a bank card, or return None."""
    if len(compact) == 18 and is_resident_id(compact):
        return Entity("ID_NUMBER", start, end, raw, compact.upper(), True, "id.resident18")
    if len(compact) == 15 and is_legacy_resident_id(compact):
        return Entity("ID_NUMBER", start, end, raw, compact, True, "id.resident15")
    if 16 <= len(compact) <= 19 and luhn_valid(compact):
        return Entity("BANK_CARD", start, end, raw, compact, True, "bank_card.luhn")
    return None


def find_numbers(text: str) -> list[Entity]:
    """Return phones, resident IDs (checksum-valid) and bank cards (Luhn-valid); amounts are left alone."""
    found: list[Entity] = []
    for cluster in _CLUSTER_RE.finditer(text):
        for match in _NUMBER_RE.finditer(text, cluster.start(), cluster.end()):
            entity = _number_entity(text, match)
            if entity is not None:
                found.append(entity)
    return found


def _on_token_edges(text: str, start: int, end: int) -> bool:
    """Return whether text[start:end] is not glued to letters, digits or a decimal point on either side."""
    if end < len(text) and text[end] in _EDGE_CHARS:
        return False
    before = text[start - 1] if start else ""
    return not (before in _EDGE_CHARS or (before == "." and text[start - 2 : start - 1].isdigit()))


def _number_entity(text: str, match: re.Match[str]) -> Entity | None:
    """Return the entity a number match stands for, or None when it is an amount or fails validation."""
    kind = match.lastgroup or ""
    start, end = match.span()
    raw = match.group()
    if not _on_token_edges(text, start, end) or _inside_money(text, start, end):
        return None
    compact = ascii_digits(re.sub(r"[^0-9０-９Xx]", "", raw))
    if kind == "run":
        return _digit_run_entity(raw, start, end, compact)
    if kind == "card":
        ok = 16 <= len(compact) <= 19 and luhn_valid(compact)
        return Entity("BANK_CARD", start, end, raw, compact, True, "bank_card.luhn") if ok else None
    rule_id, is_pii = _PHONE_RULES[kind]
    return Entity("PHONE", start, end, raw, compact, is_pii, rule_id)


def find_emails(text: str) -> list[Entity]:
    """Return email addresses; the '@' test keeps the common case (no email) to one substring search."""
    if "@" not in text:
        return []
    return [
        Entity("EMAIL", m.start(), m.end(), m.group(), m.group().lower(), True, "email")
        for m in _EMAIL_RE.finditer(text)
    ]


def find_person_names(text: str) -> list[Entity]:
    """Return personal names announced by a cue such as 姓名： or 联系人."""
    return [
        Entity("PERSON", m.start("name"), m.end("name"), m["name"], None, True, "person.cued")
        for m in _NAME_RE.finditer(text)
    ]
