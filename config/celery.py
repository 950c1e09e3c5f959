"""The Celery application shared by the web process, workers and beat."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger, worker_process_init

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


@worker_process_init.connect
def _rules_warm_up(**_: Any) -> None:
    """Each pool process loads what the rule stages need before its first job (a job waits less, the first
    provisional result comes sooner); a failure here is logged, and the first job meets it again."""
    # Imported when a pool process starts: the app module must stay importable before Django is set up.
    from contracts.analysis import rules_warm_up

    try:
        rules_warm_up()
    except Exception:
        logging.getLogger(__name__).exception("warming up the rule stages failed")
