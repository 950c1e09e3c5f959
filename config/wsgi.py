"""WSGI entry point (gunicorn config.wsgi)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def warm_up() -> None:
    """Load now, as a web worker starts, what Django, PDFium and Celery would otherwise load on the first request
    that needs it: the URLconf with every view and what they import (rule packs, the safety model's libraries),
    the PDFium library, Celery's result backend and producer pool (no connection is opened). Measured with
    py-spy under load: these imports made a fresh worker's first uploads wait 1–6 s."""
    # Imported here, after Django is set up, and only in a web worker: this function is why they load.
    from celery import current_app
    from django.urls import get_resolver  # (the same reason)

    get_resolver().url_patterns  # noqa: B018 (evaluated for its side effect)
    import pypdfium2  # noqa: F401  # the PDFium library itself, loaded now rather than on the first PDF upload

    current_app.backend  # noqa: B018
    current_app.producer_pool  # noqa: B018


warm_up()
