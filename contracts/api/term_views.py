"""`GET /api/v1/contracts/terms/` (and `terms.csv`, `terms.xlsx`): the key-term grid of the organisation's contracts
with the portal's filters; `POST /api/v1/documents/<id>/terms/<finding>/decision/`: a reviewer decides one cell."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_organisation, request_user
from contracts.api.errors import error_response
from contracts.api.permissions import IsOrganisationReviewer, request_sees_personal_data
from contracts.api.serializers import ErrorSerializer
from contracts.findings import finding_list
from contracts.legal.grid import PRESENCES, SORT_FIXED, GridRow, grid_filter_from, grid_json, term_grid
from contracts.legal.grid_export import GRID_FORMATS, XLSX, grid_file
from contracts.legal.grid_review import term_cell_decide
from contracts.legal.term_values import TERM_KINDS
from contracts.models import Document, ReviewDecision
from contracts.review.workflow import ReviewError
from contracts.tenancy.personal_data import finding_masked

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 429)}
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 50, 200


class GridQuerySerializer(serializers.Serializer):
    """The grid's filters and sort, as the portal page takes them."""

    contract_type = serializers.CharField(required=False, max_length=50, help_text="lease, loan, labour, sale …")
    title = serializers.CharField(required=False, max_length=200, help_text="part of the title or file name")
    term = serializers.ChoiceField(choices=TERM_KINDS, required=False, help_text="the term presence/low/high test")
    presence = serializers.ChoiceField(choices=PRESENCES, required=False)
    low = serializers.CharField(required=False, max_length=40, help_text="from: an amount, 20%, days, 2026-03-01")
    high = serializers.CharField(required=False, max_length=40, help_text="to (inclusive)")
    sort = serializers.ChoiceField(choices=[*SORT_FIXED, *TERM_KINDS], required=False, default="created")
    order = serializers.ChoiceField(choices=["asc", "desc"], required=False, default="desc")
    page = serializers.IntegerField(required=False, min_value=1, default=1)
    page_size = serializers.IntegerField(required=False, min_value=1, max_value=MAX_PAGE_SIZE, default=50)


TERM_CELL = inline_serializer(
    "TermCell",
    {
        "status": serializers.ChoiceField(choices=PRESENCES),
        "text": serializers.CharField(),
        "findings": serializers.ListField(child=serializers.DictField()),
    },
)
GRID_ROW = inline_serializer(
    "TermGridRow",
    {
        "document": serializers.UUIDField(),
        "title": serializers.CharField(),
        "contract_type": serializers.CharField(),
        "result_version": serializers.IntegerField(),
        "created_at": serializers.DateTimeField(),
        "terms": serializers.DictField(child=TERM_CELL),
    },
)
GRID_PAGE = inline_serializer(
    "TermGridPage",
    {
        "count": serializers.IntegerField(),
        "page": serializers.IntegerField(),
        "results": serializers.ListField(child=GRID_ROW),
    },
)


def _grid_rows(request: Request) -> tuple[list[GridRow], dict[str, Any]]:
    query = GridQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    organisation = request_organisation(request)
    assert organisation is not None  # IsOrganisationMember
    rows = term_grid(organisation, grid_filter_from(query.validated_data), show_pii=request_sees_personal_data(request))
    return rows, query.validated_data


class TermGridView(APIView):
    """The organisation's contracts with their key terms (each a status present/blank/missing, its text and its
    findings with id, value and span), filtered and sorted as the portal's grid; personal data masked for who
    sees it masked."""

    @extend_schema(
        operation_id="contracts_terms", parameters=[GridQuerySerializer], responses={200: GRID_PAGE, **ERRORS}
    )
    def get(self, request: Request) -> Response:
        rows, asked = _grid_rows(request)
        page = Paginator(rows, asked["page_size"]).get_page(asked["page"])
        return Response({"count": len(rows), "page": page.number, "results": [grid_json(row) for row in page]})


class TermGridExportView(APIView):
    """The grid (every contract the filters keep) as CSV (UTF-8 with BOM) or XLSX."""

    @extend_schema(
        operation_id="contracts_terms_export",
        parameters=[
            GridQuerySerializer,
            OpenApiParameter("file_format", str, OpenApiParameter.PATH, enum=list(GRID_FORMATS)),
        ],
        responses={(200, "text/csv"): OpenApiTypes.BINARY, (200, XLSX): OpenApiTypes.BINARY, **ERRORS},
    )
    def get(self, request: Request, file_format: str) -> HttpResponse:
        rows, _asked = _grid_rows(request)
        exported = grid_file(rows, file_format)
        response = HttpResponse(exported.body, content_type=exported.content_type)
        response["Content-Disposition"] = f'attachment; filename="{exported.filename}"'
        return response


class TermDecisionInputSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=ReviewDecision.values)
    value = serializers.CharField(required=False, allow_blank=True, max_length=500, default="")
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")
    result_version = serializers.IntegerField(required=False, min_value=1, help_text="the version the cell came from")


class TermDecisionView(APIView):
    """A reviewer approves, corrects (`value`, read as the rules read contracts) or rejects one key term of a
    contract's finished result: a new result version, audited as `review.finding_decided`."""

    permission_classes = [IsOrganisationReviewer]

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ReviewError):
            return error_response(exc.code, exc.message, exc.status)
        return super().handle_exception(exc)

    @extend_schema(
        operation_id="documents_terms_decision",
        request=TermDecisionInputSerializer,
        responses={
            200: inline_serializer(
                "TermDecision", {"result_version": serializers.IntegerField(), "finding": serializers.DictField()}
            ),
            409: OpenApiResponse(ErrorSerializer),
            **ERRORS,
        },
    )
    def post(self, request: Request, document_id: uuid.UUID, finding_id: str) -> Response:
        incoming = TermDecisionInputSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        organisation = request_organisation(request)
        document = get_object_or_404(Document, pk=document_id, organisation=organisation, kind="contract")
        result = term_cell_decide(
            document=document,
            user=request_user(request),
            organisation=document.organisation,  # the caller's own (the lookup above)
            finding_id=finding_id,
            decision=data["decision"],
            value=data["value"],
            note=data["note"],
            seen_version=data.get("result_version"),
        )
        # A rejected finding leaves the findings for the rejected ones.
        stored = [*finding_list(result.data, "findings"), *finding_list(result.data, "rejected_findings")]
        finding: dict[str, Any] = next((dict(f) for f in stored if str(f.get("id")) == finding_id), {})
        shown = finding if request_sees_personal_data(request) else finding_masked(finding)
        return Response({"result_version": result.version, "finding": shown})
