"""The hotline desk's API routes under /api/v1/: repeat cases."""

from __future__ import annotations

from rest_framework.routers import DefaultRouter

from contracts.hotline.api import CaseViewSet

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("cases", CaseViewSet, basename="case")

urlpatterns = router.urls
