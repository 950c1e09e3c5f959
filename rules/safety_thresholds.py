"""Default safety gate thresholds, kept apart so settings can read them without importing the matchers."""

from __future__ import annotations

DEFAULT_REVIEW_THRESHOLD = 0.5
DEFAULT_BLOCK_THRESHOLD = 0.85
# The learned model's P(unsafe) thresholds per document kind, (review, block), chosen on swept data the shipped
# model was not trained on (rules/safety/model/MODEL_CARD.md gives the sweeps and the commands):
# - ticket: the lowest review threshold at which the model adds at most 0.25 % flagged tickets to the lexicon's, on
#   1,439 real citizen tickets that are in no safety evaluation file; the block threshold is the model's half of a
#   block that both layers must agree on;
# - contract: the same with at most 0.5 % added on 353 real contract texts;
# - text (anything else, e.g. requests to a model): the highest at which harmful requests of a source the model never
#   saw (JADE left out) are recalled at 0.80, the floor; a person reviews, nothing is refused at that level;
# - outgoing: the generic thresholds; every reply and summary DocGate's templates write passes (a test).
DEFAULT_KIND_THRESHOLDS: dict[str, tuple[float, float]] = {
    "ticket": (0.85, DEFAULT_BLOCK_THRESHOLD),
    "contract": (0.95, 0.99),
    "outgoing": (DEFAULT_REVIEW_THRESHOLD, DEFAULT_BLOCK_THRESHOLD),
    "text": (0.3, DEFAULT_BLOCK_THRESHOLD),
}
# Under LLM_POLICY=cascade, the learned model's P(unsafe) from which the gate asks the LLM, per kind (others use
# LLM_CASCADE_GATE_RISK, the lexicon's band). Contract: 0.75, above which lie 9.3 % of the same 353 real contract
# texts (0.2 would ask about 84 % of them: ordinary contract language scores high, which is why the contract
# review threshold is 0.95).
DEFAULT_CASCADE_MODEL_RISK: dict[str, float] = {"contract": 0.75}

# A recalibrated review threshold moves at most this far from the one in use per retraining, and stays in this band.
THRESHOLD_STEP = 0.1
THRESHOLD_BOUNDS = (0.3, 0.99)


def review_threshold_recalibrate(current: float, held: list[tuple[float, bool]], *, block: float) -> float:
    """The review threshold of a kind after reviewers judged the texts its model held back: `held` is (the model's
    P(unsafe), whether the reviewer upheld the hold). The threshold rises just above the overruled holds' risks, but
    never above an upheld one's, nor above `block`, and moves at most THRESHOLD_STEP; nothing overruled: unchanged."""
    overruled = [risk for risk, upheld in held if not upheld]
    if not overruled:
        return current
    upheld = [risk for risk, kept in held if kept]
    ceiling = min([block, current + THRESHOLD_STEP, THRESHOLD_BOUNDS[1], *upheld])
    wanted = max(overruled) + 0.005  # just above the highest risk a reviewer let through
    return round(max(THRESHOLD_BOUNDS[0], current, min(wanted, ceiling)), 4)
