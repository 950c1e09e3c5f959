"""Top-level URL map: API under /api/v1/, portal at /, admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("contracts.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("frontend.urls")),
]
