"""Benchmark: ticket rules (one Aho-Corasick pass) against a naive per-keyword `str.find` loop; one JSON object."""

from __future__ import annotations

import json
import sys
import time

from rules.evaluation.common import jsonl_rows
from rules.normalize.width import fold_text
from rules.tickets.matcher import rule_match
from rules.tickets.pack import TicketRulePack, load_pack
from rules.tickets.repeats import RepeatIndex, ticket_signature
from rules.tickets.urgency import urgency_cues
from tests.benchmarks.measure import GROWTH_CHARS, SIZES, chars_per_second, naive_term_hits
from tests.shared_data import shared_file


def automaton_term_hits(text: str, pack: TicketRulePack) -> list[tuple[int, str]]:
    """The same occurrences from the pack's automaton (to check both sides do the same work)."""
    terms = pack.automaton.terms
    return [(start, terms[number]) for number, start, _end in pack.automaton.occurrences(fold_text(text))]


def main() -> None:
    """Run the benchmark and print its JSON report."""
    pack = load_pack()
    terms = pack.terms
    tickets = [row["text"] for row in jsonl_rows(shared_file("tickets/public.jsonl"))]
    sample = tickets[:200]
    if any(sorted(naive_term_hits(fold_text(t), terms)) != sorted(automaton_term_hits(t, pack)) for t in sample):
        raise SystemExit("naive and automaton matching disagree; the comparison would be meaningless")
    rule_match("预热")
    rules_rate = chars_per_second(rule_match, tickets)
    naive_rate = chars_per_second(lambda text: naive_term_hits(fold_text(text), terms), tickets)
    whole = "\n".join(tickets)
    while len(whole) < max(SIZES):
        whole += "\n" + whole
    growth = {}
    for size in SIZES:
        piece = whole[:size]
        growth[str(size)] = round(chars_per_second(rule_match, [piece] * max(1, GROWTH_CHARS // size)))
    naive_growth = {
        str(size): round(chars_per_second(lambda t: naive_term_hits(fold_text(t), terms), [whole[:size]]))
        for size in SIZES[:3]
    }
    detector = RepeatIndex()
    for i, text in enumerate(tickets):
        detector.add(str(i), ticket_signature(text))
    detector.repeats(ticket_signature("预热"))
    started = time.perf_counter()
    for text in sample:
        detector.repeats(ticket_signature(text))
    repeat_qps = len(sample) / (time.perf_counter() - started)
    rates = list(growth.values())
    report = {
        "tickets": len(tickets),
        "corpus_chars": sum(map(len, tickets)),
        "terms": len(terms),
        "rules": len(pack.rules),
        "pack_version": pack.version,
        "rules_chars_per_s": round(rules_rate),
        "naive_find_chars_per_s": round(naive_rate),
        "ratio_vs_naive": round(rules_rate / naive_rate, 2),
        "rules_tickets_per_s": round(len(tickets) / (sum(map(len, tickets)) / rules_rate)),
        "rules_chars_per_s_by_size": growth,
        "naive_chars_per_s_by_size": naive_growth,
        "growth_max_over_min_rate": round(max(rates) / min(rates), 2),
        "urgency_chars_per_s": round(chars_per_second(urgency_cues, tickets)),
        "repeat_queries_per_s_over_index": round(repeat_qps, 1),
        "repeat_index_size": len(detector),
    }
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
