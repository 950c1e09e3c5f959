"""Django app configuration for the document domain."""

from __future__ import annotations

from django.apps import AppConfig


class ContractsConfig(AppConfig):
    name = "contracts"
    verbose_name = "DocGate documents"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import contracts.operations.metrics  # noqa: F401  (observes stage latency as pipeline results are stored)
        from contracts.api import schema  # noqa: F401  (registers the API key's OpenAPI security scheme)
        from contracts.hotline import departments  # noqa: F401  (registers the hotline desk's department model)
        from contracts.hotline.deadlines import calendar  # noqa: F401  (registers the holiday calendar's model)
        from contracts.legal import playbooks  # noqa: F401  (registers the legal desk's playbook model)
        from contracts.operations import checks  # noqa: F401  (registers system checks)
