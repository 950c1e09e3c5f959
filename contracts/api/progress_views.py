"""The hotline platform's progress reports: POST /api/v1/documents/<id>/progress/ (thin: input → service →
output)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_api_key, request_organisation, request_user
from contracts.api.progress_serializers import DeadlineSerializer, ProgressSerializer
from contracts.api.serializers import ErrorSerializer
from contracts.hotline.deadlines.clock import deadline_data
from contracts.hotline.deadlines.progress import ProgressReport, ticket_progress_record
from contracts.models import Document


class TicketProgressView(APIView):
    """Report a ticket's progress on the hotline platform."""

    @extend_schema(
        request=ProgressSerializer,
        responses={
            200: DeadlineSerializer,
            **{code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 404, 409, 429)},
        },
        summary="Report a ticket's progress (dispatched, answered, closed, returned)",
    )
    def post(self, request: Request, document_id: str) -> Response:
        """Dispatched → answered → closed, or returned (with its reason) and dispatched again; `answered` and
        `closed` stop the ticket's clock. The same report again changes nothing; a step out of order is a 409."""
        document = get_object_or_404(Document, pk=document_id, organisation=request_organisation(request))
        incoming = ProgressSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        report = ProgressReport(
            status=data["status"],
            at=data.get("at") or timezone.now(),
            department=data["department"].strip(),
            reason=data["reason"].strip(),
            note=data["note"].strip(),
        )
        deadline, _ = ticket_progress_record(
            document=document, report=report, user=request_user(request), api_key=request_api_key(request)
        )
        return Response(deadline_data(deadline))
