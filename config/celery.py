"""The Celery application shared by the web process, workers and beat."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger

from contracts.logfilters import handlers_mask

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("docgate")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@after_setup_logger.connect
@after_setup_task_logger.connect
def _handlers_mask(logger: logging.Logger, **_: Any) -> None:
    """Celery's worker and beat (and each prefork child) set up their own log handlers, dropping the ones from
    settings.LOGGING: they get the personal-data mask here."""
    handlers_mask(logger)
