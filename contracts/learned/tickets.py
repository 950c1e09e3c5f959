"""Where each organisation's trained ticket classifier lives, and loading it once per process."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from contracts.learned.store import model_current_dir, model_publish

if TYPE_CHECKING:
    from rules.tickets.classifier import TicketClassifier

logger = logging.getLogger(__name__)
NAME = "tickets"


def classifier_publish(organisation_slug: str, classifier: TicketClassifier) -> Path:
    """Save a trained classifier as a new version and make it the organisation's current one."""
    return model_publish(organisation_slug, NAME, classifier.version, classifier.save)


def classifier_current(organisation_slug: str) -> TicketClassifier | None:
    """Return the organisation's current classifier, or None when it has not trained one (rules alone)."""
    directory = model_current_dir(organisation_slug, NAME)
    return None if directory is None else _classifier_load(str(directory))


@lru_cache(maxsize=16)
def _classifier_load(directory: str) -> TicketClassifier | None:
    from rules.tickets.classifier import (  # heavy: scikit-learn, loaded only when a classifier is trained or used
        IncompatibleArtifactError,
        TicketClassifier,
    )

    try:
        return TicketClassifier.load(directory)
    except IncompatibleArtifactError:
        logger.warning("ticket classifier at %s cannot be used; classifying with rules alone", directory, exc_info=True)
        return None
