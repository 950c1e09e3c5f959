"""An evaluation set for repeat cases, generated at test time from the public tickets (never stored in DocGate).

Positives: a ticket rewritten as a citizen writes again — general words swapped for synonyms, punctuation changed,
再次反映 / 至今未解决 / 多次投诉 added, dates and numbers changed, sentences shuffled, and two of these at once.
Hard negatives: the same ticket moved to another district of the same city (its anonymised district code
replaced, the text otherwise identical), and other tickets of the same category (the held-out fold, queried
against the stored one). Tickets that are near-copies of an earlier row are dropped first, so that a true repeat
in the data is not counted as a false merge. Folds are by row id, so a threshold chosen on one is scored on the
other.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rules.tickets.repeats import RepeatIndex, RepeatMatch, TicketSignature, ticket_shingles, ticket_signature

SYNONYMS = {
    "反映": "反应", "希望": "恳请", "解决": "处理", "问题": "情况", "现在": "目前", "马上": "立即", "非常": "十分",
    "没有": "未", "影响": "干扰", "领导": "负责人", "要求": "请求", "已经": "已", "一直": "始终", "造成": "导致",
    "相关": "有关", "尽快": "尽早", "但是": "可是", "因为": "由于", "严重": "极其", "居民": "住户", "询问": "咨询",
    "告诉": "告知", "知道": "了解", "请问": "想问", "处理": "解决", "生活": "日常生活", "情况": "状况",
}  # fmt: skip
AGAIN = ("再次反映：", "至今未解决，", "多次投诉无果，", "此前已反映过，")
AGAIN_TAIL = ("问题至今未解决！", "已经多次投诉了，请重视。", "再次反映，盼回复。")
# An anonymised district or county of the public board (A3区, K3县): the unit the hard negatives move.
DISTRICT = re.compile(r"(?<![A-Za-z0-9])([A-Z])([0-9]{1,3})(区|县)")
# A number of a date or time (2019年, 3月, 5日, 8点), never a place code (A3区) or a house number.
_DATE_NUMBER = re.compile(r"(?<![A-Za-z0-9])[0-9]{1,4}(?=[年月日号点时])")
_SENTENCE = re.compile(r"(?<=[。！？；!?;])")


def _rng(row_id: str, salt: str) -> random.Random:
    return random.Random(int(hashlib.sha256(f"{row_id}:{salt}".encode()).hexdigest()[:12], 16))


def synonym_swaps(text: str, rng: random.Random) -> str:
    words = [w for w in SYNONYMS if w in text]
    for word in rng.sample(words, k=min(len(words), 4)):
        text = text.replace(word, SYNONYMS[word], 1)
    return text


def punctuation(text: str, rng: random.Random) -> str:
    table = {"，": rng.choice([",", "、", " "]), "。": rng.choice(["！", ".", "；"]), "！": "。", "？": "?"}
    return "".join(table.get(c, c) for c in text)


def again(text: str, rng: random.Random) -> str:
    return rng.choice(AGAIN) + text + rng.choice(AGAIN_TAIL)


def dates(text: str, rng: random.Random) -> str:
    changed = _DATE_NUMBER.sub(lambda m: str(int(m.group()) % 9 + rng.randint(1, 3)), text)
    return changed.replace("昨天", "前天").replace("今年", "去年").replace("上周", "上个月")


def shuffled(text: str, rng: random.Random) -> str:
    sentences = [s for s in _SENTENCE.split(text) if s]
    if len(sentences) < 2:
        return text
    head, rest = sentences[0], sentences[1:]  # the title-like first sentence stays: citizens rewrite the body
    rng.shuffle(rest)
    return head + "".join(rest)


TRANSFORMS: dict[str, Callable[[str, random.Random], str]] = {
    "synonyms": synonym_swaps,
    "punctuation": punctuation,
    "again": again,
    "dates": dates,
    "shuffled": shuffled,
}


def positive_variants(row_id: str, text: str) -> list[tuple[str, str]]:
    """Each transform alone, and two of them at once: (name, rewritten text)."""
    out = [(name, f(text, _rng(row_id, name))) for name, f in TRANSFORMS.items()]
    rng = _rng(row_id, "pair")
    first, second = rng.sample(list(TRANSFORMS), k=2)
    out.append((f"{first}+{second}", TRANSFORMS[second](TRANSFORMS[first](text, rng), rng)))
    return out


def other_district(row_id: str, text: str) -> str | None:
    """The same ticket about another district of its city (every district code moved), or None without one."""
    if not DISTRICT.search(text):
        return None
    rng = _rng(row_id, "district")
    shift = rng.randint(1, 8)
    return DISTRICT.sub(lambda m: f"{m[1]}{int(m[2]) + shift}{m[3]}", text)


def districts(text: str) -> set[str]:
    return {m.group() for m in DISTRICT.finditer(text)}


def fold_of(row_id: str) -> int:
    return int(hashlib.sha256(row_id.encode()).hexdigest()[:8], 16) % 2


def exact_jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def deduplicated(rows: Sequence[dict[str, str]], limit: float = 0.8) -> list[dict[str, str]]:
    """Rows without those whose 3-gram set is a near-copy (Jaccard ≥ limit) of an earlier row's."""
    kept: list[dict[str, str]] = []
    kept_sets: list[set[str]] = []
    index: dict[str, list[int]] = {}
    for row in rows:
        grams = ticket_shingles(row["text"])
        seen: dict[int, int] = {}
        for gram in grams:
            for n in index.get(gram, ()):
                seen[n] = seen.get(n, 0) + 1
        if any(exact_jaccard(grams, kept_sets[n]) >= limit for n, c in seen.items() if c >= limit * len(grams) / 2):
            continue
        for gram in grams:
            index.setdefault(gram, []).append(len(kept))
        kept.append(row)
        kept_sets.append(grams)
    return kept


@dataclass(frozen=True)
class Query:
    """A ticket looked up against the stored fold, what it should find, and how it was made."""

    text: str
    expected: str | None  # the stored ticket it repeats; None: it repeats none
    how: str
    signature: TicketSignature


@dataclass
class Score:
    precision: float
    recall: float
    merges: int
    wrong_merges: int
    cross_place_merges: int
    positives: int
    negatives: int
    missed_by_how: dict[str, int]

    def as_dict(self) -> dict[str, object]:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def evaluation_fold(rows: Sequence[dict[str, str]], fold: int) -> tuple[RepeatIndex, dict[str, str], list[Query]]:
    """The stored fold's index and texts, and the queries: its positives and hard negatives, and the other
    fold's tickets of the same categories as negatives."""
    stored = [r for r in rows if fold_of(r["id"]) == fold]
    others = [r for r in rows if fold_of(r["id"]) != fold]
    index = RepeatIndex()
    texts: dict[str, str] = {}
    queries: list[Query] = []
    for row in stored:
        index.add(row["id"], ticket_signature(row["text"]))
        texts[row["id"]] = row["text"]
        for how, text in positive_variants(row["id"], row["text"]):
            queries.append(Query(text, row["id"], how, ticket_signature(text)))
        moved = other_district(row["id"], row["text"])
        if moved is not None:
            queries.append(Query(moved, None, "other_district", ticket_signature(moved)))
    categories = {r["label"] for r in stored}
    for row in others:
        if row["label"] in categories:
            queries.append(Query(row["text"], None, "other_ticket", ticket_signature(row["text"])))
    return index, texts, queries


def lookups(index: RepeatIndex, queries: Iterable[Query]) -> list[tuple[Query, RepeatMatch | None]]:
    """Each query's best match at threshold 0 (every candidate the index returns, scored)."""
    out = []
    for query in queries:
        found = index.repeats(query.signature, threshold=0.0)
        out.append((query, found[0] if found else None))
    return out


def score(looked_up: Sequence[tuple[Query, RepeatMatch | None]], texts: dict[str, str], threshold: float) -> Score:
    """Precision and recall of merges at `threshold`; a merge between texts naming different districts counts."""
    merges = wrong = cross = hits = 0
    missed: dict[str, int] = {}
    positives = sum(1 for q, _ in looked_up if q.expected is not None)
    for query, match in looked_up:
        merged = match is not None and match.evidence.is_repeat(threshold)
        if merged and match is not None:
            merges += 1
            if match.ticket_id == query.expected:
                hits += 1
            else:
                wrong += 1
            a, b = districts(query.text), districts(texts[match.ticket_id])
            if a and b and not a & b:
                cross += 1
        elif query.expected is not None:
            missed[query.how] = missed.get(query.how, 0) + 1
        if merged and match is not None and query.expected is not None and match.ticket_id != query.expected:
            missed[query.how] = missed.get(query.how, 0) + 1
    return Score(
        precision=hits / merges if merges else 1.0,
        recall=hits / positives if positives else 1.0,
        merges=merges,
        wrong_merges=wrong,
        cross_place_merges=cross,
        positives=positives,
        negatives=len(looked_up) - positives,
        missed_by_how=missed,
    )


def chosen_threshold(looked_up: Sequence[tuple[Query, RepeatMatch | None]], texts: dict[str, str]) -> float:
    """The middle of the thresholds (0.05 grid) whose F1 is within 0.002 of the best: on the plateau, as far from
    both of its edges as it can be."""
    grid = [step / 20 for step in range(1, 20)]
    f1s = []
    for threshold in grid:
        s = score(looked_up, texts, threshold)
        f1s.append(2 * s.precision * s.recall / (s.precision + s.recall) if s.precision + s.recall else 0.0)
    best = max(f1s)
    plateau = [t for t, f1 in zip(grid, f1s, strict=True) if f1 >= best - 0.002]
    return plateau[len(plateau) // 2]
