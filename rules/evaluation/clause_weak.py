"""A weak-label check of clause presence on unlabelled contracts: article headings stand in for labels.

Most real contracts title their articles (第九条 争议解决, 十一、合同的变更和解除). A document is weakly positive
for a clause type when one of its numbered articles is titled with that type's heading words, and weakly negative
when it is *well titled* (at least MIN_TITLED titled articles) and none is. The heading words below are written for
this check, apart from the pack, so that the check does not grade the pack against itself; they are the words model
contracts put in article titles. The matcher then runs on the whole text, as in production.

Weak recall (found among weak positives) is a fair estimate: a titled article is a clause the policy counts (for
the types whose bare slot does not count, only titled articles with written content are weak positives). Weak
precision (weak positives among the well-titled documents where the matcher finds the type) is a lower bound:
a clause written inside an article titled otherwise ("其他" holding the notice clause) counts against it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

Span = tuple[int, int]
Predictor = Callable[[str], dict[str, Span | None]]

MIN_TITLED = 5
# Heading words per clause type; `_NOT_HEADING` words make a title about something else (a delivery deadline is
# not the contract's term, a delivery notice is not a notice clause).
_HEADING = {
    "违约金/违约责任": r"违约|罚则|罚款|赔偿",
    "不可抗力": r"不可抗|意外事故",
    "保密": r"保密|秘密",
    "争议解决": r"争议|争执|纠纷|仲裁|诉讼",
    "管辖/适用法律": r"适用法律|法律适用|准据法|管辖",
    "合同解除/终止": r"解除|终止|中止|取消|撤销|解约",
    "付款/结算": r"付款|支付|结算|价款|货款|租金|价格|费用|报酬|收费",
    "知识产权": r"知识产权|专利|著作权|版权|商标|成果",
    "责任限制": r"免责|责任限制|责任的限制|责任免除|除外责任",
    "竞业限制": r"竞业",
    "定金": r"定金",
    "验收": r"验收|检验",
    "合同期限": r"期限|有效期|年限|期间",
    "通知/送达": r"通知|送达|通讯|联络",
}
_NOT_HEADING = {
    "合同期限": r"付款|支付|结算|交货|供货|运到|运输|装运|工程|工期|竣工|验收|异议|交纳|保修|质量|交付|提货|还款|试用"
    r"|投资|标书|履行|责任|补助|周转",
    "通知/送达": r"发货|提货|到货|交货|装运|装船|开工|竣工|验收|拨款|中标|缴款|付款",
    "争议解决": r"质量|异议",
    "知识产权": r"检验|验收",
}
# Titles of these types count only with written content under them (the labelling policy's bare-slot rule).
_CONTENT_NEEDED = ("违约金/违约责任", "争议解决", "管辖/适用法律", "定金", "责任限制", "竞业限制", "通知/送达")
_HEADINGS = {label: re.compile(pattern) for label, pattern in _HEADING.items()}
_NOT_HEADINGS = {label: re.compile(pattern) for label, pattern in _NOT_HEADING.items()}


def title_types(title: str) -> set[str]:
    """The clause types an article title names by this check's heading words."""
    found = set()
    for label, pattern in _HEADINGS.items():
        exclusion = _NOT_HEADINGS.get(label)
        if pattern.search(title) and not (exclusion and exclusion.search(title)):
            found.add(label)
    return found


def weak_labels(text: str) -> tuple[set[str], int]:
    """(the types a contract's titled articles name, how many titled articles it has)."""
    from rules.clauses.structure import document_structure, fold, is_blank  # imported here, as presence_spans

    structure = document_structure(fold(text))
    labels: set[str] = set()
    titled = 0
    for article in structure.articles():
        if article.title is None:
            continue
        titled += 1
        body_blank = is_blank(structure.text[article.body_start : article.end])
        named = title_types(structure.text[article.title[0] : article.title[1]])
        labels |= {label for label in named if not (body_blank and label in _CONTENT_NEEDED)}
    return labels, titled


def evaluate_weak(texts: Iterable[str], predict: Predictor | None = None) -> dict[str, Any]:
    """Weak recall and weak precision (a lower bound) per clause type, and their micro averages."""
    if predict is None:
        from rules.evaluation.clauses import presence_spans  # the matcher's pack loads only when measuring it

        predict = presence_spans
    tallies: dict[str, dict[str, int]] = {label: {"tp": 0, "fn": 0, "fp": 0, "tp_titled": 0} for label in _HEADING}
    documents = well_titled = 0
    for text in texts:
        documents += 1
        labels, titled = weak_labels(text)
        predicted = {label for label, span in predict(text).items() if span is not None}
        well_titled += titled >= MIN_TITLED
        for label, tally in tallies.items():
            if label in labels:
                tally["tp" if label in predicted else "fn"] += 1
                tally["tp_titled"] += label in predicted and titled >= MIN_TITLED
            elif label in predicted and titled >= MIN_TITLED:
                tally["fp"] += 1
    per_clause = {label: _rates(**tally) for label, tally in tallies.items()}
    total = {key: sum(tally[key] for tally in tallies.values()) for key in ("tp", "fn", "fp", "tp_titled")}
    return {"documents": documents, "well_titled": well_titled, "micro": _rates(**total), "per_clause": per_clause}


def _rates(tp: int, fn: int, fp: int, tp_titled: int) -> dict[str, float | int]:
    """Weak recall over every weak positive; weak precision over the well-titled documents only."""
    recall = tp / (tp + fn) if tp + fn else 0.0
    precision = tp_titled / (tp_titled + fp) if tp_titled + fp else 0.0
    return {
        "weak_recall": round(recall, 4),
        "weak_precision_lower": round(precision, 4),
        "weak_positives": tp + fn,
        "found_unheaded": fp,
    }
