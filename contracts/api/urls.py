"""API routes under /api/v1/, with the OpenAPI schema and its docs pages."""

from __future__ import annotations

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny
from rest_framework.routers import DefaultRouter

from contracts.api.case_views import CaseViewSet
from contracts.api.hotspot_views import HotspotsView
from contracts.api.learning_views import ModelRollbackView, ModelVersionListView, ReviewerExamplesExportView
from contracts.api.progress_views import TicketProgressView
from contracts.api.report_views import DocumentReportView
from contracts.api.review_views import ReviewTaskViewSet
from contracts.api.search_views import SearchView
from contracts.api.term_views import TermDecisionView, TermGridExportView, TermGridView
from contracts.api.views import DocumentViewSet, JobViewSet
from contracts.api.webhook_views import WebhookDeliveryListView, WebhookEndpointView, WebhookRedeliverView

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("documents", DocumentViewSet, basename="document")
router.register("jobs", JobViewSet, basename="job")
router.register("reviews", ReviewTaskViewSet, basename="review")
router.register("cases", CaseViewSet, basename="case")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(permission_classes=[AllowAny]), name="api-schema"),
    path(
        "docs/", SpectacularSwaggerView.as_view(url_name="api-schema", permission_classes=[AllowAny]), name="api-docs"
    ),
    path(
        "redoc/", SpectacularRedocView.as_view(url_name="api-schema", permission_classes=[AllowAny]), name="api-redoc"
    ),
    path("hotspots/", HotspotsView.as_view(), name="api-hotspots"),
    path("search/", SearchView.as_view(), name="api-search"),
    path("contracts/terms/", TermGridView.as_view(), name="api-contract-terms"),
    re_path(
        r"^contracts/terms\.(?P<file_format>csv|xlsx)$",
        TermGridExportView.as_view(),
        name="api-contract-terms-export",
    ),
    path(
        "documents/<uuid:document_id>/terms/<str:finding_id>/decision/",
        TermDecisionView.as_view(),
        name="document-term-decision",
    ),
    path("webhook/", WebhookEndpointView.as_view(), name="webhook"),
    path("webhook/deliveries/", WebhookDeliveryListView.as_view(), name="webhook-deliveries"),
    path(
        "webhook/deliveries/<uuid:delivery_id>/redeliver/",
        WebhookRedeliverView.as_view(),
        name="webhook-delivery-redeliver",
    ),
    path("reviewer-examples/", ReviewerExamplesExportView.as_view(), name="reviewer-examples"),
    path("models/", ModelVersionListView.as_view(), name="model-versions"),
    path("models/<slug:name>/rollback/", ModelRollbackView.as_view(), name="model-rollback"),
    path("documents/<uuid:document_id>/progress/", TicketProgressView.as_view(), name="document-progress"),
    re_path(
        r"^documents/(?P<document_id>[0-9a-fA-F-]{36})/report\.(?P<file_format>docx|pdf)$",
        DocumentReportView.as_view(),
        name="document-report",
    ),
    *router.urls,
]
