"""API routes under /api/v1/, with the OpenAPI schema and its docs pages."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny
from rest_framework.routers import DefaultRouter

from contracts.api.views import DocumentViewSet, JobViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("documents", DocumentViewSet, basename="document")
router.register("jobs", JobViewSet, basename="job")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="api-schema"),
    path(
        "docs/", SpectacularSwaggerView.as_view(url_name="api-schema", permission_classes=[AllowAny]), name="api-docs"
    ),
    path(
        "redoc/", SpectacularRedocView.as_view(url_name="api-schema", permission_classes=[AllowAny]), name="api-redoc"
    ),
    *router.urls,
]
