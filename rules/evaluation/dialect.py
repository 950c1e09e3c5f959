"""Dialect evaluation: CER, chrF and word accuracy of normalize() against written Chinese, and Mandarin drift."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from rules.evaluation.dialect_words import word_accuracy
from rules.normalize import normalize
from rules.normalize.canonical import fold_edits, punctuation_edits, whitespace_edits
from rules.normalize.dialect import dialect_edits
from rules.normalize.offsets import apply_edits
from rules.normalize.script import converter, to_simplified

CHRF_ORDER = 6
CHRF_BETA = 2.0


def edit_distance(source: str, target: str) -> int:
    """Levenshtein distance between two strings (insert, delete, substitute all cost 1)."""
    # Trim the common prefix and suffix first: compared texts are often nearly identical.
    prefix = 0
    while prefix < min(len(source), len(target)) and source[prefix] == target[prefix]:
        prefix += 1
    source, target = source[prefix:], target[prefix:]
    suffix = 0
    while suffix < min(len(source), len(target)) and source[-1 - suffix] == target[-1 - suffix]:
        suffix += 1
    source, target = source[: len(source) - suffix], target[: len(target) - suffix]
    if len(source) < len(target):
        source, target = target, source
    previous = list(range(len(target) + 1))
    for i, char in enumerate(source, start=1):
        current = [i]
        for j, other in enumerate(target, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other)))
        previous = current
    return previous[-1]


def _ngrams(text: str, order: int) -> Counter[str]:
    return Counter(text[i : i + order] for i in range(len(text) - order + 1))


def chrf(
    hypotheses: Sequence[str], references: Sequence[str], order: int = CHRF_ORDER, beta: float = CHRF_BETA
) -> float:
    """Corpus chrF (0..100): n-gram precision/recall summed over the corpus per order, averaged, F-beta."""
    precisions: list[float] = []
    recalls: list[float] = []
    for n in range(1, order + 1):
        matched = hypothesis_total = reference_total = 0
        for hypothesis, reference in zip(hypotheses, references, strict=True):
            hyp, ref = _ngrams(hypothesis, n), _ngrams(reference, n)
            matched += sum((hyp & ref).values())
            hypothesis_total += sum(hyp.values())
            reference_total += sum(ref.values())
        if hypothesis_total and reference_total:
            precisions.append(matched / hypothesis_total)
            recalls.append(matched / reference_total)
    if not precisions:
        return 0.0
    precision = sum(precisions) / len(precisions)
    recall = sum(recalls) / len(recalls)
    if precision + recall == 0:
        return 0.0
    return 100 * (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def canonical_form(text: str) -> str:
    """Width, punctuation and spacing of the normalizer, without script or dialect changes."""
    text, _ = apply_edits(text, fold_edits(text, {}))
    text, _ = apply_edits(text, punctuation_edits(text))
    text, _ = apply_edits(text, whitespace_edits(text, {}))
    return text


def corpus_cer(hypotheses: Sequence[str], references: Sequence[str]) -> float:
    """Corpus-level CER: total character edits / total reference characters."""
    edits = sum(edit_distance(h, r) for h, r in zip(hypotheses, references, strict=True))
    characters = sum(len(r) for r in references)
    return edits / characters if characters else 0.0


def evaluate_dialect(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return n, cer, baseline_cer (OpenCC hk2s alone), chrf, baseline_chrf and word accuracy over the rows.

    CER is corpus-level (total edits / total reference characters). The reference and the baseline output
    get the normalizer's canonical punctuation and spacing first, so that convention counts for neither.
    word_accuracy (rules.evaluation.dialect_words): the share of the Cantonese words with one standard
    rendering that the rules rewrote to it; word_occurrences is how many were scored.
    """
    hk2s = converter("hk2s").convert
    sources: list[str] = []
    references: list[str] = []
    systems: list[str] = []
    baselines: list[str] = []
    for row in rows:
        sources.append(row["source"])
        references.append(canonical_form(row["reference"]))
        systems.append(normalize(row["source"]).text)
        baselines.append(canonical_form(hk2s(row["source"])))
    words = word_accuracy(sources)
    return {
        "n": len(references),
        "cer": round(corpus_cer(systems, references), 4),
        "baseline_cer": round(corpus_cer(baselines, references), 4),
        "chrf": round(chrf(systems, references), 2),
        "baseline_chrf": round(chrf(baselines, references), 2),
        "word_accuracy": words["word_accuracy"],
        "word_occurrences": words["word_occurrences"],
        "word_accuracy_per_word": words["per_word"],
    }


def mandarin_change_rate(texts: Iterable[str]) -> float:
    """Share of characters the script and dialect steps change in Mandarin text, beyond the canonical form."""
    changed = total = 0
    for text in texts:
        canonical = canonical_form(text)
        normalized = normalize(text).text
        total += len(canonical)
        changed += edit_distance(canonical, normalized)
    return changed / total if total else 0.0


def dialect_drift(texts: Iterable[str], top: int = 20) -> dict[str, Any]:
    """What the dialect step alone changes in (Mandarin) texts: characters, their share, and the commonest edits.

    Each text is taken as the dialect step sees it (canonical form, then simplified); the edits it would make are
    counted in changed characters (edit distance of each rewritten span), over the characters of those texts.
    """
    changed = total = 0
    edits: Counter[str] = Counter()
    for text in texts:
        seen, _ = to_simplified(canonical_form(text), cantonese=True)
        total += len(seen)
        for start, end, mandarin in dialect_edits(seen):
            changed += edit_distance(seen[start:end], mandarin)
            edits[f"{seen[max(0, start - 4) : start]}[{seen[start:end]}→{mandarin}]{seen[end : end + 4]}"] += 1
    return {
        "characters": total,
        "changed": changed,
        "rate": round(changed / total, 6) if total else 0.0,
        "top_changes": edits.most_common(top),
    }
