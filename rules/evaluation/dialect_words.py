"""Word accuracy of the dialect rewrite: how many Cantonese words with one standard rendering were rewritten to it.

Definition (reported by `evaluate dialect` as `word_accuracy`):
- The scored words are those of `data/cantonese_standard_words.tsv`: Cantonese words whose standard written
  rendering is one word (喺 → 在, 依家 → 现在, 點解 → 为什么, …), listed from the language, not from the pairs.
- Each source sentence is searched for them leftmost-longest, in their written and hk2s forms (唔係 is one
  occurrence of 唔係, not one of 唔 and one of 係); a word marked `as-written` only as written (係, whose hk2s
  form 系 is a Mandarin character).
- An occurrence is rewritten correctly when the normalized characters that come from it (through the offset map:
  every output character whose original range overlaps the occurrence) contain its rendering and no longer
  contain the Cantonese word. 喺度 → 在这里 holds 在: correct; 喺 left as 喺: wrong; 喺 dropped: wrong.
- word_accuracy = correct occurrences / scored occurrences, over all pairs; `word_occurrences` is the
  denominator. The reference is not read: the rendering is the word's, whatever a translator chose in that
  sentence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from ahocorasick_rs import AhoCorasick, MatchKind

from rules.normalize import NormalizedText, normalize
from rules.normalize.dialect_lexicon import read_table, script_forms

WORDS_FILE = Path(__file__).resolve().parent / "data" / "cantonese_standard_words.tsv"


@cache
def standard_words(path: Path = WORDS_FILE) -> tuple[AhoCorasick, tuple[str, ...], tuple[str, ...]]:
    """A leftmost-longest automaton over every form of the scored words, each form's word and rendering."""
    _, rows = read_table(path)
    forms: dict[str, tuple[str, str]] = {}
    for word, rendering, *flags in rows:
        for form in [word] if "as-written" in flags else script_forms(word):
            forms.setdefault(form, (word, rendering))
    keys = list(forms)
    automaton = AhoCorasick(keys, matchkind=MatchKind.LeftmostLongest)
    return automaton, tuple(forms[key][0] for key in keys), tuple(forms[key][1] for key in keys)


def rendered_from(result: NormalizedText, start: int, end: int) -> str:
    """The normalized characters whose original range overlaps [start, end) of the original text."""
    pieces: list[str] = []
    for position, char in enumerate(result.text):
        original_start, original_end = result.to_original(position, position + 1)
        if original_start < end and original_end > start:
            pieces.append(char)
    return "".join(pieces)


def word_accuracy(sources: Iterable[str], rewrite: Callable[[str], NormalizedText] = normalize) -> dict[str, Any]:
    """word_accuracy, word_occurrences, and per word (occurrences, correct), as defined in the module docstring."""
    automaton, words, renderings = standard_words()
    scored: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    for source in sources:
        matches = automaton.find_matches_as_indexes(source)
        if not matches:
            continue
        result = rewrite(source)
        for number, start, end in matches:
            word, rendering = words[number], renderings[number]
            produced = rendered_from(result, start, end)
            scored[word] += 1
            if rendering in produced and not any(form in produced for form in script_forms(word)):
                correct[word] += 1
    total = sum(scored.values())
    return {
        "word_accuracy": round(sum(correct.values()) / total, 4) if total else None,
        "word_occurrences": total,
        "per_word": {word: [scored[word], correct[word]] for word in sorted(scored, key=lambda w: -scored[w])},
    }
