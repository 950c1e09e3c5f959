"""normalize(): canonical, simplified, Mandarin text for matching, with an offset map back to the original."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from rules.normalize.canonical import fold_edits, punctuation_edits, whitespace_edits
from rules.normalize.dialect import cantonese_score, dialect_edits, is_cantonese, load_lexicon
from rules.normalize.offsets import StepMap, apply_edits, compose_span
from rules.normalize.script import simplified_step


@dataclass(frozen=True)
class NormalizeReport:
    """What normalization changed; `as_dict()` is stored with the job as JSON."""

    original_length: int
    normalized_length: int
    script_config: str
    cantonese_score: float
    is_cantonese: bool
    lexicon_id: str
    lexicon_version: str
    invalid_replaced: int
    controls_replaced: int
    invisible_removed: int
    line_ends_unified: int
    width_folds: int
    punctuation_folds: int
    spaces_removed: int
    lines_joined: int
    dialect_replacements: int

    def as_dict(self) -> dict[str, Any]:
        """Return the report as a plain JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class NormalizedText:
    """Normalized text, the maps of the steps that moved characters, and the report."""

    text: str
    original_length: int
    steps: tuple[StepMap, ...]
    report: NormalizeReport

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Return the smallest original span covering normalized span [start, end) (clamped to range)."""
        return compose_span(self.steps, start, end, len(self.text))


def normalize(text: str) -> NormalizedText:
    """Normalize `text` for matching (see rules.normalize); never raises on odd input."""
    counts: dict[str, int] = {}
    steps: list[StepMap] = []
    current, step = apply_edits(text, fold_edits(text, counts))
    if step:
        steps.append(step)
    punctuation = punctuation_edits(current)
    current, step = apply_edits(current, punctuation)
    if step:
        steps.append(step)
    current, step = apply_edits(current, whitespace_edits(current, counts))
    if step:
        steps.append(step)
    score = cantonese_score(current)
    cantonese = is_cantonese(score)
    current, step, config = simplified_step(current, cantonese=cantonese)
    if step:
        steps.append(step)
    dialect = dialect_edits(current) if cantonese else []
    current, step = apply_edits(current, dialect, group_multichar=True)
    if step:
        steps.append(step)
    lexicon = load_lexicon()
    report = NormalizeReport(
        original_length=len(text),
        normalized_length=len(current),
        script_config=config,
        cantonese_score=round(score, 4),
        is_cantonese=cantonese,
        lexicon_id=lexicon.lexicon_id,
        lexicon_version=lexicon.version,
        invalid_replaced=counts.get("invalid", 0),
        controls_replaced=counts.get("control", 0),
        invisible_removed=counts.get("invisible", 0),
        line_ends_unified=counts.get("crlf", 0) + counts.get("linesep", 0),
        width_folds=counts.get("width", 0),
        punctuation_folds=len(punctuation),
        spaces_removed=counts.get("spaces_removed", 0),
        lines_joined=counts.get("lines_joined", 0),
        dialect_replacements=len(dialect),
    )
    return NormalizedText(text=current, original_length=len(text), steps=tuple(steps), report=report)
