"""The hotspots page: the organisation's ticket hotspots with a trend chart and the tickets behind each."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from contracts.hotline.hotspots import hotspots_json, organisation_hotspots
from frontend.access import may_see_pii, member_required, org_of
from frontend.forms import HotspotFilterForm
from frontend.views import read_refused

# Apache ECharts, copied from npm's package by `make charts` (never a CDN); the page says so when it is missing.
ECHARTS = "frontend/vendor/echarts.min.js"


@require_GET
@member_required
def hotspots(request: HttpRequest) -> HttpResponse:
    """Hotspots of the last 12 windows, hottest first; one read of the user's budget (the analysis reads every
    ticket in the range)."""
    refused = read_refused(request)
    if refused is not None:
        return refused
    form = HotspotFilterForm(request.GET or None)
    chosen = form.cleaned_data if form.is_valid() else {}
    result = organisation_hotspots(
        organisation=org_of(request),
        window=chosen.get("window") or "week",
        period=chosen.get("period") or "all",
        top=chosen.get("top") or 10,
        sees_personal_data=may_see_pii(request),
    )
    context = {
        "form": form,
        "body": hotspots_json(result),
        "charts_available": finders.find(ECHARTS) is not None,
        "echarts": ECHARTS,
    }
    return render(request, "frontend/hotspots.html", context)
