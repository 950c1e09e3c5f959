"""Build `cantonese_lexicon.tsv`, the mined Cantonese → Mandarin word table, from the shared training lexicon.

    python -m rules.normalize.data.build_dialect_lexicon [--shared ../shared/data] [--out PATH]

Inputs (never the dialect evaluation pairs):
- `train/dialect_lexicon.tsv`: Cantonese → Mandarin pairs from msgchi (public domain, reversed from Mandarin →
  Cantonese) and 開放詞典 / kaifangcidian (CC BY 3.0); several targets per key, some of them glosses.
- Mandarin frequency: jieba's word list (jieba 0.42.1, MIT; a test dependency) and the counts of each string in
  two Mandarin corpora, `train/contracts_unlabeled.jsonl` and `tickets/public.jsonl`. Only counts are used: no
  text of those corpora reaches the table.

What is kept, and why:
- The common single characters (佢 嘅 啲 咁 …) are the hand-written grammar rules' (`cantonese_mandarin.tsv`,
  with contexts), which win over this table; a single-character key of this table must be one that Mandarin
  does not use (below) and its target must come from kaifangcidian, whose entries are written in this direction.
- A key that is itself ordinary Mandarin once simplified (a common jieba word, or found in the Mandarin corpora,
  or listed as its own target) is dropped: the mined table has no contexts, so it must never change Mandarin.
- A target must be plain Chinese (no punctuation or ellipsis), at most two characters longer than its key and at
  most twice as long (longer ones are explanations), and attested in Mandarin (a jieba word or in the corpora).
- Among the remaining targets the best scores `log(1 + Mandarin frequency)`, plus a bonus when both sources give
  it and a small one for kaifangcidian, whose entries are written Cantonese → Mandarin (msgchi's are reversed);
  ties go to the shorter, then the smaller string, so the output is deterministic.

Running it twice writes the same bytes (rows sorted by key; no dates or paths in the header).
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from rules.normalize.dialect import region_edits
from rules.normalize.dialect_lexicon import load_lexicon
from rules.normalize.offsets import apply_edits
from rules.normalize.script import converter
from rules.term_search import TermIndex

HERE = Path(__file__).resolve().parent
OUT = HERE / "cantonese_lexicon.tsv"
DEFAULT_SHARED = HERE.parents[2].parent / "shared" / "data"
LEXICON_ID = "docgate.cantonese_lexicon"
VERSION = "2026.2"
SOURCES = {"msgchi-cmn2yue": "msgchi", "kaifangcidian-yue": "kaifangcidian"}
_HAN_ONLY = re.compile(r"[\u3400-\u9fff\U00020000-\U0003ffff]+")
# A key simplified is ordinary Mandarin from this jieba frequency on, or from this many corpus occurrences.
MANDARIN_WORD_FREQUENCY = 5
MANDARIN_CORPUS_COUNT = 2
BOTH_SOURCES_BONUS = 3.0
KAIFANGCIDIAN_BONUS = 0.5
CORPUS_WEIGHT = 20  # one corpus occurrence counts like this many jieba frequency points
COMPOSITION_BONUS = 2.0  # times the share of a target's characters the grammar rules' rendering also has


@dataclass(frozen=True)
class Candidate:
    """One possible Mandarin rendering of a key, with the sources that list it."""

    target: str
    sources: frozenset[str]


@dataclass(frozen=True)
class Choice:
    """The chosen rendering of a key: the row written to the table."""

    key: str
    target: str
    sources: frozenset[str]
    score: float


def read_pairs(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Cantonese key → [(Mandarin target in traditional script, source)] in file order."""
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) == 3 and cells[2] in SOURCES:
            pairs[cells[0].strip()].append((cells[1].strip(), SOURCES[cells[2]]))
    return pairs


def jieba_frequencies() -> dict[str, int]:
    """jieba's word → frequency list (simplified Mandarin, from large general corpora)."""
    import jieba  # a test dependency, imported here only: the product never needs it

    path = Path(jieba.__file__).with_name("dict.txt")
    frequencies: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        word, frequency, *_ = line.split(" ")
        frequencies[word] = int(frequency)
    return frequencies


def mandarin_texts(shared: Path) -> Iterator[str]:
    """The texts of the two Mandarin corpora, simplified as the normalizer would see them."""
    t2s = converter("t2s").convert
    for relative in ("train/contracts_unlabeled.jsonl", "tickets/public.jsonl"):
        with (shared / relative).open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield t2s(json.loads(line)["text"])


def corpus_counts(strings: Iterable[str], texts: Iterable[str]) -> Counter[str]:
    """Occurrences of each string in the texts, overlapping ones included, in one automaton pass per text."""
    index = TermIndex((string, None) for string in sorted(set(strings)))
    counts: Counter[str] = Counter()
    for text in texts:
        for number, _, _ in index.occurrences(text):
            counts[index.terms[number]] += 1
    return counts


def candidates(key: str, pairs: list[tuple[str, str]]) -> list[Candidate]:
    """The key's simplified targets, explanations and odd forms left out, with their sources merged."""
    t2s = converter("t2s").convert
    merged: dict[str, set[str]] = defaultdict(set)
    for target, source in pairs:
        simplified = t2s(target)
        if not _HAN_ONLY.fullmatch(simplified):
            continue
        if len(simplified) > len(key) + 2 or len(simplified) > 2 * len(key):
            continue
        merged[simplified].add(source)
    return [Candidate(target, frozenset(sources)) for target, sources in merged.items()]


def composition(key: str) -> str:
    """The key as the hand-written grammar rules alone render it, word by word (simplified)."""
    simplified = converter("hk2s").convert(key)
    rendered, _ = apply_edits(simplified, region_edits(simplified, [(0, len(simplified))], load_lexicon(mined=None)))
    return converter("t2s").convert(rendered)


def _attested(text: str, words: dict[str, int], counts: Counter[str]) -> int:
    return words.get(text, 0) + CORPUS_WEIGHT * counts[text]


def choose(
    key: str, options: list[Candidate], words: dict[str, int], counts: Counter[str]
) -> tuple[Choice | None, str]:
    """The best attested candidate for `key`, or None and the reason it is dropped."""
    simplified_key = converter("hk2s").convert(key)
    if words.get(simplified_key, 0) >= MANDARIN_WORD_FREQUENCY or counts[simplified_key] >= MANDARIN_CORPUS_COUNT:
        return None, "key is Mandarin"
    if any(option.target == simplified_key for option in options):
        return None, "key is its own target"
    rendered = composition(key)
    if rendered != simplified_key and _attested(rendered, words, counts):
        return None, "grammar rules render it"  # the rules' word-by-word Mandarin is attested: no paraphrase
    scored: list[tuple[float, int, str, Candidate]] = []
    for option in options:
        if len(key) == 1 and "kaifangcidian" not in option.sources:
            continue
        frequency = _attested(option.target, words, counts)
        if frequency == 0:
            continue
        score = math.log1p(frequency)
        score += COMPOSITION_BONUS * len(set(option.target) & set(rendered)) / len(set(option.target))
        score += BOTH_SOURCES_BONUS * (len(option.sources) - 1)
        score += KAIFANGCIDIAN_BONUS * ("kaifangcidian" in option.sources)
        scored.append((-score, len(option.target), option.target, option))
    if not scored:
        return None, "no attested target"
    negative_score, _, _, best = min(scored)
    return Choice(key, best.target, best.sources, round(-negative_score, 2)), "kept"


def build(shared: Path) -> tuple[list[Choice], Counter[str]]:
    """Choose a target for every usable key; return the rows and how many keys each reason dropped."""
    pairs = read_pairs(shared / "train" / "dialect_lexicon.tsv")
    hk2s = converter("hk2s").convert
    keys = sorted(key for key in pairs if _HAN_ONLY.fullmatch(key))
    options = {key: candidates(key, pairs[key]) for key in keys}
    wanted = {hk2s(key) for key in keys} | {option.target for group in options.values() for option in group}
    wanted |= {composition(key) for key in keys} - {""}  # a key of particles alone renders as nothing
    counts = corpus_counts(wanted, mandarin_texts(shared))
    words = jieba_frequencies()
    reasons: Counter[str] = Counter()
    chosen: list[Choice] = []
    for key in keys:
        choice, reason = choose(key, options[key], words, counts)
        reasons[reason] += 1
        if choice is not None:
            chosen.append(choice)
    return chosen, reasons


def render(rows: list[Choice], reasons: Counter[str]) -> str:
    """The table as written: header (id, version, sources, licences, attribution), then key-sorted rows."""
    dropped = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()) if reason != "kept")
    header = [
        f"# id: {LEXICON_ID}",
        f"# version: {VERSION}",
        "# source: built by `python -m rules.normalize.data.build_dialect_lexicon` from DocGate's training lexicon",
        "#   (train/dialect_lexicon.tsv), ranked by Mandarin frequency (jieba 0.42.1's word list and counts in",
        "#   Mandarin contracts and tickets; no text of them is copied). Do not edit by hand: change the builder.",
        "# sources and licences:",
        "#   msgchi (bluebat/msgchi, cmn2yue.dic, reversed): public domain",
        "#   開放詞典 Cantonese dictionary, © 2009–2020 開放詞典 (kaifangcidian.com), licensed under CC BY 3.0",
        "#   (https://creativecommons.org/licenses/by/3.0/); DocGate selected, filtered and simplified its entries.",
        f"# rows: {len(rows)} kept; dropped keys: {dropped}",
        "# Columns: cantonese (Hong Kong script)<TAB>mandarin (simplified)<TAB>sources<TAB>score",
    ]
    body = [f"{row.key}\t{row.target}\t{'+'.join(sorted(row.sources))}\t{row.score:.2f}" for row in rows]
    return "\n".join(header + body) + "\n"


def main(argv: list[str] | None = None) -> None:
    """Build the table and write it (or to --out)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared data folder")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the table")
    arguments = parser.parse_args(argv)
    rows, reasons = build(arguments.shared)
    arguments.out.write_text(render(rows, reasons), encoding="utf-8")
    print(f"{len(rows)} rows → {arguments.out} ({dict(sorted(reasons.items()))})")


if __name__ == "__main__":
    main()
