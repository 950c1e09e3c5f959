"""Django app configuration for the portal and review queue pages."""

from __future__ import annotations

from django.apps import AppConfig


class FrontendConfig(AppConfig):
    name = "frontend"
    verbose_name = "DocGate portal"
