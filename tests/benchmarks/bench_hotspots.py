"""Benchmark: the hotspot analysis over 500 … 3,000 tickets, and its place step against the whole entity pipeline.

The tickets are the public board's with synthetic times over 26 weeks and the planted burst (tests/hotspot_corpus);
past 1,854 the board is read again under new ids, a day later. The baseline, measured in the same run, is finding
the same places with the spaCy entity pipeline (`extract_entities`) instead of the entity rules' place finders.
"""

from __future__ import annotations

import datetime as dt
import json
import resource
import sys
import time

from rules.entities import extract_entities
from rules.tickets.hotspot_rows import ticket_row
from rules.tickets.hotspots import HotspotTicket, hotspots_rank
from rules.tickets.places import place_entities
from tests.hotspot_corpus import BURST_IDS, corpus

SIZES = (500, 1000, 2000, 3000)
ZONE = dt.timezone(dt.timedelta(hours=8))


def tickets(count: int) -> list[HotspotTicket]:
    """The burst and `count` - 12 public tickets: the half year's, read again under new ids a day later past 1,842."""
    rows = [ticket_row(row) for row in corpus()]
    burst = [t for t in rows if t.id in BURST_IDS]
    public = [t for t in rows if t.id not in BURST_IDS]
    out, rounds = list(burst), 0
    while len(out) < count:
        later = dt.timedelta(days=rounds)
        out += [HotspotTicket(f"{t.id}~{rounds}", t.text, t.time + later) for t in public[: count - len(out)]]
        rounds += 1
    return out


def main() -> None:
    """Run the benchmark and print its JSON report."""
    seconds, cpu = {}, {}
    for size in SIZES:
        sample = tickets(size)
        started, cpu_started = time.perf_counter(), time.process_time()
        report = hotspots_rank(sample, zone=ZONE)
        seconds[str(size)] = round(time.perf_counter() - started, 2)
        cpu[str(size)] = round(time.process_time() - cpu_started, 2)
        first = set(report.hotspots[0].ticket_ids) if report.hotspots else set()
        if not set(BURST_IDS) <= first:
            raise SystemExit(f"the burst is not the first hotspot of {size} tickets; the timing would mislead")
    texts = [t.text for t in tickets(1854)]  # the burst and the whole board
    extract_entities("预热")
    started = time.perf_counter()
    for text in texts:
        place_entities(text)
    finders = time.perf_counter() - started
    started = time.perf_counter()
    for text in texts:
        extract_entities(text)
    pipeline = time.perf_counter() - started
    report_json = {
        "analysis_seconds_by_tickets": seconds,
        "analysis_cpu_seconds_by_tickets": cpu,
        "cpu_3000_over_1000": round(cpu["3000"] / cpu["1000"], 2),
        "places_seconds_1854_tickets": round(finders, 3),
        "places_by_spacy_pipeline_seconds": round(pipeline, 3),
        "ratio_vs_spacy_pipeline": round(pipeline / finders, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    json.dump(report_json, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
