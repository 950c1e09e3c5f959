"""The normalize stage: canonical text for matching, with its offset map back to what the user sent."""

from __future__ import annotations

from contracts.stages.base import JobContext
from rules.normalize import normalize


class NormalizeStage:
    """Canonical text for matching (width, punctuation, spaces, script, dialect) with its offset map."""

    name = "normalize"

    def run(self, ctx: JobContext) -> None:
        ctx.normalized = normalize(ctx.text)
