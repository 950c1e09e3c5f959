"""Throughput of extract_entities and mask_pii against naive baselines; prints one JSON object."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable

from rules.entities import extract_entities, resolve_overlaps
from rules.entities.model import Entity
from rules.entities.pipeline import TEXT_FINDERS, entity_pipeline
from rules.pii import mask_pii
from tests.shared_data import shared_file

SIZES = (1_000, 10_000, 100_000)
MIN_SECONDS = 0.5

# The baseline for mask_pii scans once per pattern, as a first version would, with no combined pass.
_NAIVE_PII_PATTERNS = [
    re.compile(p)
    for p in (
        r"(?<![0-9])1[3-9][0-9](?:[- ]?[0-9]{4}){2}(?![0-9])",
        r"(?:[(（]0[0-9]{2,3}[)）]|0[0-9]{2,3}-)[0-9]{7,8}",
        r"(?<![0-9])[0-9]{17}[0-9Xx](?![0-9])",
        r"(?<![0-9])[0-9]{15}(?![0-9])",
        r"(?<![0-9])[0-9]{16,19}(?![0-9])",
        r"[0-9]{4}(?:[ -][0-9]{4}){3}(?:[ -]?[0-9]{1,3})?",
        r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,10}",
        r"(?:姓名|联系人|投诉人|举报人)[：:]?[\u4e00-\u9fff]{2,4}",
        r"(?:住址|家住|住在)[：:]?[^\s，。]{2,40}?(?:路|街|小区|号|室)",
    )
]


def corpus() -> str:
    """Return contract and ticket texts joined, repeated until the largest size is reached."""
    texts: list[str] = []
    for name in ("contracts/public.jsonl", "tickets/public.jsonl"):
        with shared_file(name).open(encoding="utf-8") as rows:
            texts.extend(json.loads(line)["text"] for line in rows if line.strip())
    joined = "\n".join(texts)
    while len(joined) < max(SIZES):
        joined += "\n" + joined
    return joined


def naive_extract(text: str) -> list[Entity]:
    """Baseline: one spaCy doc per finder (re-tokenizing each time), then the same overlap resolution."""
    nlp = entity_pipeline()
    candidates: list[Entity] = []
    ruled = nlp.get_pipe("entity_ruler")(nlp.make_doc(text))
    for ent in ruled.ents:
        candidates.append(Entity(ent.label_, ent.start_char, ent.end_char, ent.text, None, False, ent.ent_id_))
    for finder in TEXT_FINDERS:
        doc = nlp.make_doc(text)
        for entity in finder(doc.text):
            if doc.char_span(entity.start, entity.end, alignment_mode="expand") is not None:
                candidates.append(entity)
    return resolve_overlaps(candidates, len(text))


def naive_mask(text: str) -> str:
    """Baseline: every pattern scanned separately, each hit masked in a fresh copy of the string."""
    for pattern in _NAIVE_PII_PATTERNS:
        for match in pattern.finditer(text):
            text = text[: match.start()] + "*" * (match.end() - match.start()) + text[match.end() :]
    return text


def chars_per_second(function: Callable[[str], object], text: str) -> float:
    """Return characters per second of function over text, repeating until MIN_SECONDS have passed."""
    function(text)  # warm caches (pipeline construction, compiled regexes)
    runs, started = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - started) < MIN_SECONDS or runs < 2:
        function(text)
        runs += 1
    return len(text) * runs / elapsed


Measured = dict[str, float]


def measure(function: Callable[[str], object], baseline: Callable[[str], object], text: str) -> Measured:
    """Return throughput of function and baseline on text and their ratio."""
    ours, theirs = chars_per_second(function, text), chars_per_second(baseline, text)
    return {
        "chars_per_s": round(ours),
        "baseline_chars_per_s": round(theirs),
        "ratio": round(ours / theirs, 2),
    }


def main() -> None:
    """Print one JSON object with throughput per size and growth from the smallest to the largest size."""
    text = corpus()
    result: dict[str, object] = {"sizes": list(SIZES)}
    for name, function, baseline in (
        ("extract_entities", extract_entities, naive_extract),
        ("mask_pii", mask_pii, naive_mask),
    ):
        rows = {str(size): measure(function, baseline, text[:size]) for size in SIZES}
        small, large = rows[str(SIZES[0])]["chars_per_s"], rows[str(SIZES[-1])]["chars_per_s"]
        # Throughput kept at 100K chars means time grows linearly; a quadratic pass would fall 100-fold.
        result[name] = {"by_size": rows, "throughput_kept_at_largest": round(large / small, 2)}
        print(f"{name} done", file=sys.stderr)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
