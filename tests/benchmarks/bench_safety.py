"""Benchmark: safety scoring against a naive per-term `str.find` loop, and the gate with the learned model
against the rules-only gate on the same texts, one call per text as the pipeline makes them; one JSON object."""

from __future__ import annotations

import json
import sys

from rules.evaluation.common import jsonl_rows
from rules.normalize.width import fold_text
from rules.safety import gate_decide_rules, load_safety_pack, safety_score
from rules.safety.decision import DEFAULT_POLICIES, gate_decide_text
from rules.safety.model import load_safety_model
from tests.benchmarks.measure import (
    GROWTH_CHARS,
    SIZES,
    chars_per_second,
    naive_term_hits,
    paired_chars_per_second,
)
from tests.shared_data import shared_file


def main() -> None:
    """Run the benchmark and print its JSON report."""
    pack = load_safety_pack()
    terms = pack.terms
    terms_of = pack.automaton.terms
    texts = [row["text"] for row in jsonl_rows(shared_file("safety/public.jsonl"))]
    sample = texts[:300]
    found = [pack.automaton.occurrences(fold_text(t)) for t in sample]
    automaton_hits = [sorted((start, terms_of[number]) for number, start, _end in hits) for hits in found]
    if any(
        sorted(naive_term_hits(fold_text(t), terms)) != hits for t, hits in zip(sample, automaton_hits, strict=True)
    ):
        raise SystemExit("naive and automaton matching disagree; the comparison would be meaningless")
    safety_score("预热")
    rules_rate = chars_per_second(safety_score, texts)
    naive_rate = chars_per_second(lambda text: naive_term_hits(fold_text(text), terms), texts)
    whole = "\n".join(texts)
    while len(whole) < max(SIZES):
        whole += "\n" + whole
    growth = {
        str(size): round(chars_per_second(safety_score, [whole[:size]] * max(1, GROWTH_CHARS // size), repeats=2))
        for size in SIZES
    }
    naive_growth = {
        str(size): round(chars_per_second(lambda t: naive_term_hits(fold_text(t), terms), [whole[:size]], repeats=2))
        for size in SIZES[:3]
    }
    rates = list(growth.values())
    model = load_safety_model()
    policy = DEFAULT_POLICIES["text"]

    def rules_gate(text: str) -> object:
        return gate_decide_rules(safety_score(text))

    def model_gate(text: str) -> object:
        assessment = safety_score(text)
        return gate_decide_text(assessment, model.predict([text], [assessment])[0], kind="text", policy=policy)

    model_gate("预热")
    rules_gate_rate, model_gate_rate = paired_chars_per_second([rules_gate, model_gate], texts)
    report = {
        "texts": len(texts),
        "corpus_chars": sum(map(len, texts)),
        "terms": len(terms),
        "rules": len(pack.rules),
        "regexes": len(pack.patterns),
        "pack_version": pack.version,
        "safety_chars_per_s": round(rules_rate),
        "naive_find_chars_per_s": round(naive_rate),
        "ratio_vs_naive": round(rules_rate / naive_rate, 2),
        "safety_texts_per_s": round(len(texts) / (sum(map(len, texts)) / rules_rate)),
        "safety_chars_per_s_by_size": growth,
        "naive_chars_per_s_by_size": naive_growth,
        "growth_max_over_min_rate": round(max(rates) / min(rates), 2),
        "gate_rules_only_chars_per_s": round(rules_gate_rate),
        "gate_with_model_chars_per_s": round(model_gate_rate),
        "gate_with_model_texts_per_s": round(len(texts) / (sum(map(len, texts)) / model_gate_rate)),
        "gate_model_ratio_vs_rules_only": round(model_gate_rate / rules_gate_rate, 3),
        "model_version": model.version,
        "note": "the naive side only finds literal terms; the safety side also runs regexes and context rules",
    }
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
