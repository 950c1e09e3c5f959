"""Repeat case pages: the organisation's cases with repeats, one case's tickets, and a reviewer's merge and split
(each calls a service of `contracts.hotline.cases`, audited there)."""

from __future__ import annotations

from django.contrib import messages
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from contracts.hotline.cases import CaseError, case_merge, case_split
from contracts.hotline.models import Case
from frontend.access import member_required, org_of, reviewer_required
from frontend.forms import CaseMergeForm, CaseSplitForm

CASES_SHOWN = 200


@require_GET
@member_required
def cases(request: HttpRequest) -> HttpResponse:
    """Cases with two tickets or more, most recently changed first."""
    listed = (
        Case.objects.filter(organisation=org_of(request), merged_into__isnull=True)
        .annotate(ticket_count=Count("tickets"))
        .filter(ticket_count__gte=2)
        .order_by("-updated_at", "id")[:CASES_SHOWN]
    )
    return render(request, "frontend/cases.html", {"cases": listed})


@require_GET
@member_required
def case(request: HttpRequest, case_id: str) -> HttpResponse:
    """One case: its tickets in order, how each joined; a reviewer's merge and split forms."""
    item = get_object_or_404(Case, pk=case_id, organisation=org_of(request))
    tickets = item.tickets.select_related("document").order_by("document__created_at", "document_id")
    return render(request, "frontend/case.html", {"case": item, "tickets": tickets, "merge_form": CaseMergeForm()})


def _case_own(request: HttpRequest, case_id: str) -> Case:
    """The organisation's case, or a 404 (an action on any other answers 404, not a redirect)."""
    return get_object_or_404(Case, pk=case_id, organisation=org_of(request))


@require_POST
@reviewer_required
def merge(request: HttpRequest, case_id: str) -> HttpResponse:
    target = _case_own(request, case_id)
    form = CaseMergeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Enter the id of a case to merge."))
        return redirect("case", case_id=target.pk)
    source = Case.objects.filter(pk=form.cleaned_data["case"], organisation=org_of(request)).first()
    if source is None:
        messages.error(request, _("No such case."))
        return redirect("case", case_id=target.pk)
    try:
        case_merge(organisation=org_of(request), target=target, sources=[source], user=request.user)
    except CaseError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Cases merged."))
    return redirect("case", case_id=target.pk)


@require_POST
@reviewer_required
def split(request: HttpRequest, case_id: str) -> HttpResponse:
    item = _case_own(request, case_id)
    form = CaseSplitForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a ticket of this case."))
        return redirect("case", case_id=item.pk)
    try:
        new = case_split(
            organisation=org_of(request), case=item, document_ids=[form.cleaned_data["document"]], user=request.user
        )
    except CaseError as exc:
        if exc.status == 404:
            raise Http404(exc.message) from exc
        messages.error(request, exc.message)
        return redirect("case", case_id=item.pk)
    messages.success(request, _("The ticket now has a case of its own."))
    return redirect("case", case_id=new.pk)
