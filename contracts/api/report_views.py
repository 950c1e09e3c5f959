"""`GET /api/v1/documents/<id>/report.docx` and `report.pdf`: a contract's report (Word, with a comment at each
finding and a summary page) and its summary as a PDF, as the caller may see them (`contracts.legal.report`)."""

from __future__ import annotations

import uuid

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.views import APIView

from contracts.api.auth import request_api_key, request_organisation, request_user
from contracts.api.permissions import IsOrganisationReviewer, request_sees_personal_data
from contracts.api.serializers import ErrorSerializer
from contracts.intake.extraction import DOCX
from contracts.legal.report.export import ReportFile, report_download
from contracts.models import Document

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (401, 403, 404, 429)}


def report_response(report: ReportFile) -> HttpResponse:
    """A report as a download, with whether the gates released it to every member or to reviewers only."""
    response = HttpResponse(report.body, content_type=report.content_type)
    response["Content-Disposition"] = f'attachment; filename="{report.filename}"'
    response["X-DocGate-Report-Release"] = report.release
    return response


class DocumentReportView(APIView):
    """A contract's report: `docx` (the contract with a comment at each finding, summary first) or `pdf` (the
    summary). Masked for who sees personal data masked; refused (403) when the safety gates withhold it, or hold it
    for review and the caller is no reviewer; 503 for a PDF where LibreOffice is missing."""

    @extend_schema(
        operation_id="documents_report",
        parameters=[
            OpenApiParameter("document_id", OpenApiTypes.UUID, OpenApiParameter.PATH),
            OpenApiParameter("file_format", str, OpenApiParameter.PATH, enum=["docx", "pdf"]),
        ],
        responses={
            (200, DOCX): OpenApiTypes.BINARY,
            (200, "application/pdf"): OpenApiTypes.BINARY,
            **ERRORS,
            503: OpenApiResponse(ErrorSerializer, description="LibreOffice is missing or too slow (PDF only)"),
        },
        summary="Download a contract's report (.docx with comments) or its summary (.pdf)",
    )
    def get(self, request: Request, document_id: str, file_format: str) -> HttpResponse:
        try:
            uuid.UUID(document_id)
        except ValueError:
            raise Http404 from None
        document = get_object_or_404(Document, pk=document_id, organisation=request_organisation(request))
        report = report_download(
            document=document,
            file_format=file_format,
            sees_personal_data=request_sees_personal_data(request),
            is_reviewer=IsOrganisationReviewer().has_permission(request, self),
            user=request_user(request),
            api_key=request_api_key(request),
        )
        return report_response(report)
