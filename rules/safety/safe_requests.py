"""DocGate's own training texts: ordinary requests, citizens' reports of harm, careful questions, from templates.

The licensed safety corpora hold almost no ordinary requests ("how do I renew my ID card"), no formal complaints
and few careful questions about a harm ("how do I recognise a pyramid scheme"), so a model trained on them alone
reads every "how do I" and every mention of a harm as unsafe. `rules/safety/data/safe_requests.json` holds frames
and fillers written for DocGate, each frame with its label (safe or sensitive); this module draws a fixed-seed
sample of their combinations (the same texts for the same seed and size).
"""

from __future__ import annotations

import json
import math
import random
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_PATH = Path(__file__).resolve().parent / "data" / "safe_requests.json"
SOURCE = "docgate-own"
_SLOT = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def _templates() -> dict[str, Any]:
    with open(DATA_PATH, encoding="utf-8") as handle:
        data = json.load(handle)
    for template in data["templates"]:
        slots = _SLOT.findall(template["frame"])
        if template.get("label") not in ("safe", "sensitive"):
            raise ValueError(f"{DATA_PATH}: frame {template['frame']!r} needs a label safe or sensitive")
        if slots != template["slots"] or any(slot not in data["fillers"] for slot in slots):
            raise ValueError(f"{DATA_PATH}: frame {template['frame']!r} and its slots disagree")
    return dict(data)


def own_texts(count: int = 1500, *, seed: int = 0) -> list[tuple[str, str]]:
    """Up to `count` distinct (text, label) pairs, spread evenly over the templates, drawn with `seed`."""
    data = _templates()
    fillers: dict[str, list[str]] = data["fillers"]
    templates = data["templates"]
    rng = random.Random(seed)
    texts: list[tuple[str, str]] = []
    share = math.ceil(count / len(templates))
    for template in templates:
        sizes = [len(fillers[slot]) for slot in template["slots"]]
        total = math.prod(sizes)
        for number in sorted(rng.sample(range(total), min(share, total))):
            chosen = {}
            for slot, size in zip(template["slots"], sizes, strict=True):
                number, index = divmod(number, size)
                chosen[slot] = fillers[slot][index]
            texts.append((template["frame"].format(**chosen), str(template["label"])))
    return texts[:count]


def safe_requests_version() -> str:
    """The template file's version (recorded in a model's metadata)."""
    return str(_templates()["version"])
