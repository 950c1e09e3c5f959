"""Parties: one per party, with its name, the role words the contract defines for it, its credit code or ID.

A contract defines a party on a line of its own (`委托方（以下简称甲方）：某某公司`, `甲　　方：＿＿`,
`发包方（甲方）：`) or inline (`某某公司（以下简称“许可方”）`). Every role word of one definition names the same
party, and a later definition that shares a role word (the signature block's `甲方（盖章）：`) is that party again.
Form labels (姓名, 名称, 地址 …) and blanks are never names; a role word glued to the end of a name is cut off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.contract_terms.blanks import BLANK_PATTERN, is_blank
from rules.contract_terms.model import AGREED, BLANK, KeyTerm, Party

_BLANK_RE = re.compile(BLANK_PATTERN)

# Role words that end in neither 方 nor 单位 but name a party (lists from model contracts and the 民法典's
# chapters on typical contracts).
_PERSON_ROLE_WORDS = (
    "出租人 承租人 委托人 受托人 借款人 贷款人 出借人 保证人 抵押人 抵押权人 出质人 质权人 发包人 承包人 "
    "买受人 出卖人 托运人 承运人 保管人 寄存人 投保人 保险人 被保险人 定作人 承揽人 赠与人 受赠人 "
    "转让人 受让人 许可人 被许可人 行纪人 居间人 劳动者 雇主 雇员 业主 物业服务人 合伙人 债权人 债务人"
)
_PERSON_ROLES = frozenset(_PERSON_ROLE_WORDS.split())
# Labels on a party's lines that are people or details of a party, never a party themselves.
_NOT_PARTY_WORDS = (
    "法定代表人 代表人 委托代理人 代理人 经办人 联系人 负责人 技术负责人 收货人 受益人 见证人 鉴证人 "
    "签约人 签字人 证明人 担保人代表 开户人 监护人 紧急联系人 印制单位 监制单位 鉴证单位 主管单位"
)
_NOT_PARTY = tuple(_NOT_PARTY_WORDS.split())
# 双方 / 对方 / 一方 … end in 方 but are no party; 投资方向 / 地方 are not role words at all.
_NOT_ROLE_PREFIX = re.compile(
    r"^(?:(?:订立合同|合同|本合同)?(?:双|对|一|另一|各|多|地|以下|他|我|其|任何一|守约|违约)方|(?:订立|签订|立)合同.*|.*[的双].*)$"
)
_ROLE = r"(?:[甲乙丙丁戊][ \t　]*方|[\u4e00-\u9fff]{1,6}?(?:方|单位|人|者|主))"
_PAREN = r"[（(][^）)\n]{0,20}[）)]"
# A definition label: at a line start, after a gap in a two-column block, or glued to the end of the previous
# party's name or blank slot where a line break was lost (…置业有限公司承租人：, ＿＿受托方：), then role,
# brackets, colon.
_LABEL_RE = re.compile(
    rf"(?:^|(?<=[ \t　│|])|(?:(?<=公司|集团|银行|中心|学校|医院)|(?<=[＿_]))(?=[^：:\n]{{0,24}}[：:]))"
    rf"(?P<role>{_ROLE})[ \t　]*(?P<paren>(?:{_PAREN}[ \t　]*)*)(?:[：:]|[，,](?=[^\n]*简称))",
    re.M,
)
_ALIAS_RE = re.compile(r"(?:以下简称|以下称|下称|简称)[为：:]?[“\"「『]?(?P<alias>[^）)”\"」』，,。；;．.\s]{1,8})")
_INLINE_RE = re.compile(
    r"(?P<name>[^\s，,。；;：:、（()）“”]{2,40})[”\"]?[（(](?:以下简称|以下称|下称)[为：:]?[“\"「]?"
    r"(?P<alias>[^）)”\"」]{1,8})[”\"」]?[）)]"
)
_INLINE_CUE_RE = re.compile(r"[（(](?:以下简称|以下称|下称)")
_FORM_LABEL_RE = re.compile(r"^(?:姓名|名称|单位名称|公司名称|企业名称|全称)[：:]?")
_NOT_A_NAME_RE = re.compile(
    r"^(?:地址|住所|住址|电话|手机|联系|传真|邮编|法定代表人|签字|签章|签名|盖章|公章|章|日期|身份证|证件|开户|账号|"
    r"国籍|以下简称|以下称|甲方|乙方|单位|个人|或|盖|签|关于|贵|本公司|我|该)"
)
_NAME_END_RE = re.compile(
    rf"[，,。；;：:│|]|{BLANK_PATTERN}|[ \t　]{{2,}}|[（(]|(?:电话|手机|地址|住所|联系|法定代表人)"
)
_ORG_SUFFIX_RE = re.compile(r"(?:公司|厂|中心|院|所|局|行|社|店|集团|委员会|部|学校|大学|医院|银行|商场|协会|政府|组)$")
_CREDIT_CODE_RE = re.compile(r"(?<![0-9A-Z])[0-9A-HJ-NPQRTUWXY]{2}[0-9]{6}[0-9A-HJ-NPQRTUWXY]{10}(?![0-9A-Z])")
_ID_RE = re.compile(r"(?<![0-9])[1-9][0-9]{16}[0-9Xx](?![0-9])")
_SIGNATURE_RE = re.compile(r"盖\s*章|签\s*章|签\s*字|签\s*名|公\s*章|^章$|^（?章）?$")


@dataclass
class _Definition:
    roles: list[str]
    name: str | None
    start: int
    end: int
    identifier: str | None = None


def _compact(role: str) -> str:
    return re.sub(r"[ \t　]", "", role)


def _stem(role: str) -> str:
    """出租方, 出租人 and 出租单位 are one role: the word without its 方 / 人 / 单位."""
    return re.sub(r"(?:方?单位|方|人|者)$", "", role) or role


def _shares_role(group: list[_Definition], definition: _Definition) -> bool:
    stems = {_stem(r) for d in group for r in d.roles}
    return any(_stem(r) in stems for r in definition.roles)


def is_party_role(role: str) -> bool:
    """Whether a label is a party's role word (甲方, 出租人, 用人单位, 劳动者), not a detail such as 代表人."""
    role = _compact(role)
    if role in _NOT_PARTY or _NOT_ROLE_PREFIX.match(role) or any(role.endswith(n) for n in _NOT_PARTY):
        return False
    return role.endswith(("方", "单位")) or role in _PERSON_ROLES or role == "劳动者"


def _glued_role_cut(name: str) -> str:
    """Cut a role word glued to the end of a name (某某股份有限公司供方 → 某某股份有限公司)."""
    for cut in range(2, min(len(name) - 1, 6)):
        if _ORG_SUFFIX_RE.search(name[:-cut]) and is_party_role(name[-cut:]):
            return name[:-cut]
    return name


def clean_name(slot: str) -> str | None:
    """The party name in the text after a label, or None when it is a blank, a form label or a detail."""
    slot = slot.strip(" \t　")
    slot = _FORM_LABEL_RE.sub("", slot).strip(" \t　")
    end = _NAME_END_RE.search(slot)
    name = (slot[: end.start()] if end else slot).strip(' \t　“”"')
    rest = slot[end.end() :] if end else ""
    if end and (
        end.group() in "：:" or (_BLANK_RE.fullmatch(end.group()) and re.match(r"[ \t　＿_]*[\u4e00-\u9fff]", rest))
    ):
        # 合同编号： is the next label, not a name; 中国＿＿公司 is a name still to be written.
        return None
    if len(name) < 2 or is_blank(name) or _NOT_A_NAME_RE.match(name) or _SIGNATURE_RE.search(name):
        return None
    if (
        re.search(r"[×xX＊*]{2,}|^[0-9０-９]|\{\{|号码$|执照|委托书|应|必须|保证|负责|可以|按|要", name)
        or len(name) > 30
    ):
        return None
    return _glued_role_cut(name)


def _paren_roles(paren: str) -> list[str]:
    roles = []
    for inner in re.findall(r"[（(]([^）)]*)[）)]", paren):
        alias = _ALIAS_RE.search(inner)
        candidate = _compact(alias["alias"] if alias else inner).removeprefix("称")
        if is_party_role(candidate) and len(candidate) <= 8:
            roles.append(candidate)
    return roles


def _line_definitions(text: str) -> list[_Definition]:
    found: list[_Definition] = []
    matches = [m for m in _LABEL_RE.finditer(text) if is_party_role(m["role"])]
    for index, match in enumerate(matches):
        line_end = text.find("\n", match.end())
        line_end = len(text) if line_end < 0 else line_end
        stop = min(line_end, matches[index + 1].start()) if index + 1 < len(matches) else line_end
        slot = text[match.end() : stop]
        roles = [_compact(match["role"]), *_paren_roles(match["paren"])]
        leading = re.match(rf"[ \t　]*((?:{_PAREN}[ \t　]*)+)", slot)
        if leading:  # 出租方：(甲方)
            roles += _paren_roles(leading.group(1))
            slot = slot[leading.end() :]
        alias = _ALIAS_RE.search(slot)
        if alias and is_party_role(_compact(alias["alias"]).removeprefix("称")):
            roles.append(_compact(alias["alias"]).removeprefix("称"))
            slot = slot[: alias.start()].rstrip("（(，, ")
        found.append(_Definition(roles, clean_name(slot), match.start(), stop))
    return found


def _inline_definitions(text: str) -> list[_Definition]:
    found = []
    # The pattern is tried only in the stretch before each 以下简称 (scanning the whole text is the slow part).
    windows = [(max(0, m.start() - 48), m.start() + 20) for m in _INLINE_CUE_RE.finditer(text)]
    matches = [m for start, end in windows for m in _INLINE_RE.finditer(text, start, end)]
    for match in dict.fromkeys(matches):
        alias = _compact(match["alias"]).removeprefix("称")
        # The name is the end of the phrase before the brackets: after 与/和/是/为.
        pieces = re.split(r"与|和|及|是|为|由", match["name"])
        name = pieces[-1]
        before = text[match.end("name") - len(name) - 1] if match.end("name") > len(name) else "\n"
        # A name right after a bracket or a blank is the tail of a longer, unwritten one (＿＿省＿＿市土地管理局).
        if not is_party_role(alias) or before in "）)" or _BLANK_RE.match(before) or _BLANK_RE.search(name):
            continue
        if (cut := _glued_role_cut(name)) != name:  # …有限公司受托方（以下简称乙方）: a lost line break
            name = name[len(cut) :]
            found.append(_Definition([_compact(name), alias], None, match.end("name") - len(name), match.end()))
            continue
        if is_party_role(name):  # 委托方（以下简称甲方）: two role words of one party
            found.append(_Definition([_compact(name), alias], None, match.start("name"), match.end()))
            continue
        # Only an organisation's name counts inline: elsewhere the phrase describes a role (…监护人（以下简称乙方）).
        named = clean_name(name) if _ORG_SUFFIX_RE.search(name) else None
        found.append(_Definition([alias], named, match.end("name") - len(name), match.end()))
    return found


def _identifier(text: str, start: int, end: int) -> str | None:
    window = text[start:end]
    code = _CREDIT_CODE_RE.search(window) or _ID_RE.search(window)
    return code.group() if code else None


def find_parties(text: str) -> list[KeyTerm]:
    """One key term per party, in the order the contract first defines them (see the module docstring)."""
    definitions = sorted(_line_definitions(text) + _inline_definitions(text), key=lambda d: d.start)
    parties: list[list[_Definition]] = []
    for definition in definitions:
        same = next((p for p in parties if _shares_role(p, definition)), None)
        if same is None:
            parties.append([definition])
        else:
            same.append(definition)
    if not parties:
        return _undefined_parties(text)
    terms = []
    for index, group in enumerate(parties):
        named = next((d for d in group if d.name), None)
        first = named or group[0]
        roles = tuple(dict.fromkeys(r for d in group for r in d.roles))
        # The party's details run from its first definition to the next party's.
        next_start = min((p[0].start for p in parties[index + 1 :]), default=min(len(text), first.end + 300))
        identifier = _identifier(text, group[0].start, max(next_start, group[0].end))
        is_person = bool(named and named.name and not _ORG_SUFFIX_RE.search(named.name) and len(named.name) <= 4)
        party = Party(named.name if named else None, roles, identifier, is_person)
        status = AGREED if named else BLANK
        terms.append(
            KeyTerm("party", party, first.start, first.end, text[first.start : first.end], 0.9, "party.defined", status)
        )
    return terms


def _undefined_parties(text: str) -> list[KeyTerm]:
    """A text that defines no party: 甲方, 乙方 … written at least twice are its parties, nameless."""
    terms = []
    for role in ("甲方", "乙方", "丙方", "丁方"):
        places = [m.start() for m in re.finditer(role, text)]
        if len(places) >= 2:
            start = places[0]
            terms.append(KeyTerm("party", Party(None, (role,)), start, start + 2, role, 0.5, "party.mentioned", BLANK))
    return terms
