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
- A rewrite without an offset map (the LLM's, of the rules' output) is scored through `aligned`: its characters
  are aligned to the rules' output (difflib), whose map leads back to the source, so the same definition holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from difflib import SequenceMatcher
from functools import cache
from pathlib import Path
from typing import Any

from ahocorasick_rs import AhoCorasick, MatchKind

from rules.normalize import NormalizedText, normalize
from rules.normalize.dialect_lexicon import read_table, script_forms
from rules.normalize.offsets import Edit, apply_edits

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


def aligned(result: NormalizedText, rewritten: str) -> NormalizedText:
    """`rewritten` (a further rewrite of result.text, e.g. the LLM's) with an offset map back to the original.

    The characters that differ are found by difflib's alignment; each changed run maps as one block to the run
    of result.text it replaces (an insertion maps to the gap where it was made), then through result's own map.
    """
    edits: list[Edit] = [
        (start, end, rewritten[new_start:new_end])
        for tag, start, end, new_start, new_end in SequenceMatcher(
            None, result.text, rewritten, autojunk=False
        ).get_opcodes()
        if tag != "equal"
    ]
    text, step = apply_edits(result.text, edits, group_multichar=True)
    steps = result.steps if step is None else (*result.steps, step)
    return NormalizedText.built(text, result.original_length, steps, result.facts)
