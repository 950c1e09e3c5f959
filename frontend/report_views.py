"""A contract's report from its result page: the .docx with comments, the summary as a PDF (the API's files)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_GET

from contracts.api.report_views import report_response
from contracts.legal.report.export import ReportRefused, report_download
from contracts.models import Document
from contracts.tenancy.memberships import REVIEWER_ROLES
from frontend.access import may_see_pii, member_required, org_of, portal_role


@require_GET
@member_required
def report(request: HttpRequest, document_id: str, file_format: str) -> HttpResponse:
    """Download the report as this member may see it; a refusal goes back to the result page with its reason."""
    document = get_object_or_404(Document, pk=document_id, organisation=org_of(request))
    try:
        found = report_download(
            document=document,
            file_format=file_format,
            sees_personal_data=may_see_pii(request),
            is_reviewer=portal_role(request) in REVIEWER_ROLES,
            user=request.user,
        )
    except ReportRefused as exc:
        messages.error(request, exc.message)
        return redirect("result", document_id=document.pk)
    return report_response(found)
