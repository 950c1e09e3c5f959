"""The hotspots page: the organisation's ticket hotspots with a trend chart and the tickets behind each."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from contracts.hotline.hotspots import hotspots_json, organisation_hotspots
from contracts.throttling import READ, budget_spend, caller_budget_key
from frontend.access import may_see_pii, member_required, org_of
from frontend.forms import HotspotFilterForm

# Apache ECharts, copied from npm's package by `make charts` (never a CDN); the page says so when it is missing.
ECHARTS = "frontend/vendor/echarts.min.js"


@member_required
def hotspots(request: HttpRequest) -> HttpResponse:
    """Hotspots of the last 12 windows, hottest first; one read of the user's budget (the analysis reads every
    ticket in the range)."""
    wait = budget_spend(scope=READ, caller=caller_budget_key(user=request.user))
    if wait is not None:
        message = _("Too many requests. Try again in %(n)s seconds.") % {"n": wait}
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(wait)
        return response
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
