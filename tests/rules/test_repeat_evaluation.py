"""Repeat cases measured on the public tickets: rewordings are found, other places are never merged.

The evaluation set is generated here (tests/rules/repeat_evaluation.py) from tickets/public.jsonl: each stored
ticket's rewordings are positives; the same ticket moved to another district, and the other fold's tickets of the
same categories, are negatives. The threshold chosen on one fold is scored on the other.
"""

from __future__ import annotations

import json
import sys

from rules.evaluation.common import jsonl_rows
from rules.tickets.repeats import DEFAULT_THRESHOLD
from tests.rules.repeat_evaluation import chosen_threshold, deduplicated, evaluation_fold, lookups, score
from tests.shared_data import shared_file


def test_repeats_reach_precision_and_recall_on_held_out_fold_and_never_merge_across_places() -> None:
    rows = deduplicated(list(jsonl_rows(shared_file("tickets/public.jsonl"))))
    folds = []
    for fold in (0, 1):
        _index, texts, queries = evaluation_fold(rows, fold)
        looked_up = lookups(_index, queries)
        folds.append((looked_up, texts, chosen_threshold(looked_up, texts)))
    scored: list[dict[str, object]] = []
    report = {"tickets": len(rows), "default_threshold": DEFAULT_THRESHOLD, "folds": scored}
    for fold, (looked_up, texts, _chosen) in enumerate(folds):
        chosen_elsewhere = folds[1 - fold][2]
        held_out = score(looked_up, texts, chosen_elsewhere)
        default = score(looked_up, texts, DEFAULT_THRESHOLD)
        moved = [(q, m) for q, m in looked_up if q.how == "other_district"]
        moved_merges = sum(1 for _q, m in moved if m is not None and m.evidence.is_repeat(0.0))
        scored.append(
            {
                "threshold_from_other_fold": chosen_elsewhere,
                "scored": held_out.as_dict(),
                "at_default": default.as_dict(),
                "other_district_queries": len(moved),
                "other_district_merges_at_any_threshold": moved_merges,
            }
        )
        for result in (held_out, default):
            assert result.precision >= 0.9 and result.recall >= 0.9, result
            assert result.cross_place_merges == 0, result
        assert moved and moved_merges == 0
    # The default is the thresholds the folds chose, within one grid step.
    assert all(abs(DEFAULT_THRESHOLD - chosen) <= 0.05 for _l, _t, chosen in folds), [f[2] for f in folds]
    print(json.dumps(report, ensure_ascii=False), file=sys.stderr)
