"""Where each organisation's trained ticket classifier lives, and loading it once per process."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from rules.tickets.classifier import TicketClassifier

logger = logging.getLogger(__name__)
CURRENT_FILE = "current"


def classifier_root(organisation_slug: str) -> Path:
    """Return the folder holding an organisation's classifier versions (outside the code)."""
    return Path(settings.DOCGATE_MODELS_DIR) / organisation_slug / "tickets"


def classifier_publish(organisation_slug: str, classifier: TicketClassifier) -> Path:
    """Save a trained classifier as a new version and make it the organisation's current one."""
    root = classifier_root(organisation_slug)
    directory = classifier.save(root / classifier.version)
    pointer = root / CURRENT_FILE
    temporary = pointer.with_suffix(".tmp")
    temporary.write_text(classifier.version, encoding="utf-8")
    temporary.replace(pointer)  # atomic: workers never read a half-written pointer
    return directory


def classifier_current(organisation_slug: str) -> TicketClassifier | None:
    """Return the organisation's current classifier, or None when it has not trained one (rules alone)."""
    pointer = classifier_root(organisation_slug) / CURRENT_FILE
    try:
        version = pointer.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return _classifier_load(str(pointer.parent / version))


@lru_cache(maxsize=16)
def _classifier_load(directory: str) -> TicketClassifier | None:
    from rules.tickets.classifier import IncompatibleArtifactError, TicketClassifier

    try:
        return TicketClassifier.load(directory)
    except IncompatibleArtifactError:
        logger.warning("ticket classifier at %s cannot be used; classifying with rules alone", directory,
                       exc_info=True)
        return None
