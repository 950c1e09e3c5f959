"""The dispatcher's queue: open tickets by due time with their lights, routing, region and repeat case."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.text import Truncator
from django.views.decorators.http import require_GET

from contracts.hotline.dispatch import QueueFilter, dispatch_queue
from contracts.tenancy.personal_data import preview_masked
from frontend.access import member_required, org_of
from frontend.forms import DispatchFilterForm
from frontend.templatetags.portal import PREVIEW_CHARS
from frontend.views import read_refused


@require_GET
@member_required
def queue(request: HttpRequest) -> HttpResponse:
    """Soonest due first; red past due, yellow due soon, green on time (one read of the user's budget)."""
    refused = read_refused(request)
    if refused is not None:
        return refused
    form = DispatchFilterForm(request.GET or None)
    chosen = form.cleaned_data if form.is_valid() else {}
    rows, more = dispatch_queue(
        org_of(request),
        QueueFilter(
            category=chosen.get("category") or "",
            department=chosen.get("department") or "",
            region=chosen.get("region") or "",
            repeats_only=bool(chosen.get("repeats")),
            overdue_only=bool(chosen.get("overdue")),
            include_closed=bool(chosen.get("closed")),
        ),
    )
    for row in rows:  # the list shows the start of an untitled ticket, its personal data masked for everyone
        row.preview = Truncator(preview_masked(row.document.text, row.findings, PREVIEW_CHARS + 1)).chars(PREVIEW_CHARS)
    lights = {light: sum(1 for row in rows if row.light == light) for light in ("red", "yellow", "green", "grey")}
    context = {"form": form, "rows": rows, "more": more, "lights": lights, "now": timezone.now()}
    return render(request, "frontend/dispatch.html", context)
