"""The key-term grid: contracts as rows, key terms as columns, sorted and filtered, each cell linking to its span and
decided by reviewers in place; the same rows as CSV or XLSX (`contracts.legal.grid`)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from contracts.legal.grid import grid_filter_from, term_grid
from contracts.legal.grid_export import GRID_FORMATS, grid_file
from contracts.legal.grid_review import term_cell_decide
from contracts.legal.term_values import TERM_KINDS
from contracts.models import Document
from contracts.review.workflow import ReviewError
from frontend.access import may_see_pii, member_required, org_of, reviewer_required
from frontend.forms import TermCellForm, TermGridFilterForm
from frontend.templatetags.portal import TERM_LABELS
from frontend.views import read_refused

GRID_PAGE_ROWS = 50


def _sort_links(request: HttpRequest) -> dict[str, str]:
    """Each column's sort link: the current filters, sorted by that column (again: the other way round)."""
    links = {}
    for column in ("title", "type", "created", *TERM_KINDS):
        params = request.GET.copy()
        params.pop("page", None)
        same = params.get("sort") == column
        params["sort"] = column
        params["order"] = "asc" if same and params.get("order", "desc") == "desc" else "desc"
        links[column] = f"?{params.urlencode()}"
    return links


@require_GET
@member_required
def grid(request: HttpRequest) -> HttpResponse:
    """One page of the grid (50 contracts), with the filters, sort links and, for reviewers, a decision per cell."""
    refused = read_refused(request)
    if refused is not None:
        return refused
    chosen = grid_filter_from(request.GET)
    rows = term_grid(org_of(request), chosen, show_pii=may_see_pii(request))
    page = Paginator(rows, GRID_PAGE_ROWS).get_page(request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    context: dict[str, Any] = {
        "form": TermGridFilterForm(request.GET or None),
        "page": page,
        "total": len(rows),
        "columns": [(kind, TERM_LABELS[kind]) for kind in TERM_KINDS],
        "chosen": chosen,
        "sort_links": _sort_links(request),
        "query": params.urlencode(),
        "here": request.get_full_path(),
        "types": sorted({row.contract_type for row in rows if row.contract_type}),
    }
    return render(request, "frontend/term_grid.html", context)


@require_GET
@member_required
def grid_export(request: HttpRequest, file_format: str) -> HttpResponse:
    """Every contract the filters keep (not only one page), as CSV or XLSX, masked as the page is."""
    if file_format not in GRID_FORMATS:
        raise Http404("no such format")
    refused = read_refused(request)
    if refused is not None:
        return refused
    rows = term_grid(org_of(request), grid_filter_from(request.GET), show_pii=may_see_pii(request))
    exported = grid_file(rows, file_format)
    response = HttpResponse(exported.body, content_type=exported.content_type)
    response["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
    return response


@require_POST
@reviewer_required
def cell_decide(request: HttpRequest, document_id: str, finding_id: str) -> HttpResponse:
    """Approve, correct (with the value typed) or reject one key term; a new result version, audited."""
    document = get_object_or_404(Document, pk=document_id, organisation=org_of(request), kind="contract")
    form = TermCellForm(request.POST)
    back = request.POST.get("next") or ""
    if not back or not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("term_grid")
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect(back)
    data = form.cleaned_data
    try:
        result = term_cell_decide(
            document=document,
            user=request.user,
            organisation=org_of(request),
            finding_id=finding_id,
            decision=data["decision"],
            value=data["value"],
            seen_version=data["version"],
        )
    except ReviewError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Saved as version %(v)s.") % {"v": result.version})
    return redirect(back)
