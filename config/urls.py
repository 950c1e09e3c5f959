"""Top-level URL map: API under /api/v1/, operator probes, portal at /, admin."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from contracts.operations.health import healthz, readyz
from contracts.operations.metrics import metrics_view
from frontend.forms import AdminSignInForm
from frontend.sign_in import SignInView

# The operators' sign-in spends the same per-account attempt budget as the portal's.
admin.site.login_form = AdminSignInForm

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("contracts.api.urls")),
    # Before Django's own auth URLs: the sign-in with an attempt budget answers at their /accounts/login/.
    path("accounts/login/", SignInView.as_view(), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("healthz", healthz, name="healthz"),
    # The liveness probe's usual name (deploy/k8s); the same answer as /healthz.
    path("livez", healthz, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("", include("frontend.urls")),
]
