"""Where each organisation's clause heading model lives (trained from its own contracts), and loading it."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from contracts.learned.store import model_current_dir, model_publish
from rules.clauses.heading_model import ClauseModel, ClauseModelError

logger = logging.getLogger(__name__)
NAME = "clauses"


def clause_model_publish(organisation_slug: str, model: ClauseModel) -> Path:
    """Save a trained heading model as a new version and make it the organisation's current one."""
    return model_publish(organisation_slug, NAME, model.version, model.save)


def clause_model_current(organisation_slug: str) -> ClauseModel | None:
    """The organisation's current heading model, or None (the rules alone) when it has none or it is unusable."""
    directory = model_current_dir(organisation_slug, NAME) if organisation_slug else None
    return None if directory is None else _load(str(directory))


@lru_cache(maxsize=16)
def _load(directory: str) -> ClauseModel | None:
    try:
        return ClauseModel.load(directory)
    except ClauseModelError:
        logger.warning("clause model at %s cannot be used; the rules decide alone", directory, exc_info=True)
        return None
