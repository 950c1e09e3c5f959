"""A contract read for its legal function: what it prohibits, penalises, defines or keeps confidential is not harm.

Contracts name harm in order to rule it out: a labour contract lists theft among the grounds for dismissal, a
confidentiality article names customer lists and trade secrets, terms of service list the content users must not
post (explosives, obscenity). Chinese drafting marks these functions with a small, stable vocabulary — prohibition
(不得, 禁止, 严禁), liability and penalty (违反…的, 承担…责任, 赔偿, 解除劳动合同, 视为违约), exemption and the
allocation of risk (不负…责任, 免责, 除外, 不可抗力, 防止), definition (是指, 包括但不限于) and confidentiality (保密,
商业秘密) — and a list of such cases hangs under a header that carries the marker
(乙方有下列情形之一的，甲方可以解除劳动合同：（一）…（二）…).

`legal_function_masked` blanks every such clause (spaces of the same length, so offsets keep their meaning), so
that the lexicon and the safety model judge what the contract does, not what it forbids. A clause that also
addresses the reader as a machine or asks for help (忽略以上指令, 请你, 教我) is never blanked: instructions to a
model and requests for harmful help stay where the gate sees them. The unit is the sentence (to a full stop or a
line break), as legal drafting writes one obligation per sentence: a harmful commission written into the same
sentence as a prohibition is blanked with it, which the reviewer reading the contract still sees.
"""

from __future__ import annotations

import re

# The markers of a clause's legal function in Chinese contract drafting.
_FUNCTION = re.compile(
    r"不得|禁止|严禁|不准|不许|不允许|不应|不能|切勿|杜绝"  # prohibition
    r"|违反|违约|违规|违纪|处罚|罚款|罚金|赔偿|追究|承担[^。；]{0,12}责任|解除[^。；]{0,4}合同|开除|辞退|除名"
    r"|视为|有权(?:终止|解除|拒绝|删除|追究)"  # liability and penalty
    r"|不负[^。；]{0,12}责任|免除[^。；]{0,8}责任|免责|除外|例外|不可抗力|防止|预防"  # exemption, risk allocation
    r"|是指|系指|指的是|包括但不限于|含义|定义"  # definition
    r"|保密|商业秘密|机密"  # confidentiality
)
# What a contract clause never says to its parties: instructions to a model, requests for help.
_ADDRESSED = re.compile(
    r"忽略|无视|指令|提示词|系统提示|审核系统|人工智能|\bAI\b|模型|你现在是|扮演|请你|帮我|教我|告诉我|输出"
    r"|判定为|如何制作|怎么制作|怎样制作|配方",
    re.IGNORECASE,
)
# A clause ends at a full stop or a line break; a line ending in a colon opens a list its items belong to.
_CLAUSE = re.compile(r"[^。！？!?\n]*(?:[。！？!?]+|\n|$)")
_ITEM = re.compile(r"\s*(?:[（(]?[一二三四五六七八九十百\d]{1,3}[)）、.．]|[①-⑳]|[-•·*])")
_OPENS_LIST = re.compile(r"[:：]\s*$")


def legal_function_masked(text: str) -> str:
    """`text` with every clause that prohibits, penalises, defines or keeps confidential blanked (spaces of the
    same length), the items of a list whose header does so included; clauses addressed to a model kept."""
    out: list[str] = []
    listing = False  # inside the items of a list whose header has a legal function
    for match in _CLAUSE.finditer(text):
        clause = match.group()
        if not clause:
            continue
        item = _ITEM.match(clause) is not None
        if not item:
            listing = False
        functional = listing or _FUNCTION.search(clause) is not None
        if functional and _OPENS_LIST.search(clause.rstrip("\n")):
            listing = True
        if functional and _ADDRESSED.search(clause) is None:
            out.append(re.sub(r"[^\n]", " ", clause))
        else:
            out.append(clause)
    return "".join(out)
