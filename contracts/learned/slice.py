"""The labelled documents a retraining learns from and is judged on: the held-back slice of an organisation's
reviewed documents (`rules.evaluation.activation.held_back`) is never trained on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from rules.evaluation.activation import held_back


@dataclass(frozen=True)
class Labelled:
    """One reviewed document as a model kind sees it: its id, its text, its label."""

    key: str
    text: str
    label: str


@dataclass(frozen=True)
class SliceSplit:
    """Reviewed documents split into those trained on and those held back to judge a new version."""

    train: tuple[Labelled, ...]
    held: tuple[Labelled, ...]

    def statement(self) -> dict[str, Any]:
        """How the slice was picked and what it holds, for the version list and the audit log."""
        return {
            "rule": (
                f"per label, the documents whose sha256(id) falls below {settings.DOCGATE_RETRAIN_SLICE_SHARE} "
                "(at least one of each label with two or more); never trained on"
            ),
            "held_back": len(self.held),
            "trained_on": len(self.train),
            "held_back_per_label": dict(sorted(Counter(item.label for item in self.held).items())),
        }


def slice_split(items: Sequence[Labelled]) -> SliceSplit:
    """Split by the stable, stratified hash rule (the same document is held back at every retraining)."""
    held = held_back([(item.key, item.label) for item in items], settings.DOCGATE_RETRAIN_SLICE_SHARE)
    return SliceSplit(
        train=tuple(item for item in items if item.key not in held),
        held=tuple(item for item in items if item.key in held),
    )
