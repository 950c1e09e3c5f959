"""What an organisation's admins see of DocGate learning from its reviewers: the reviewer examples as JSONL, the
model versions with their slice evaluations, and rolling one back."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_organisation, request_user
from contracts.api.errors import error_response
from contracts.api.permissions import IsOrganisationAdmin, request_sees_personal_data
from contracts.api.serializers import ErrorSerializer
from contracts.learned.versions import ModelVersionError, model_rollback, version_row
from contracts.models import LearnedModelVersion
from contracts.review.examples_export import reviewer_examples_jsonl

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (401, 403, 409, 429)}


class ReviewerExamplesExportView(APIView):
    """GET: the organisation's reviewer examples as JSONL (admins; `?masked=true` masks personal data anyway)."""

    permission_classes = [IsOrganisationAdmin]

    @extend_schema(
        parameters=[
            OpenApiParameter("masked", OpenApiTypes.BOOL, description="mask personal data even if you may see it"),
            OpenApiParameter("kind", OpenApiTypes.STR, many=True, description="only these example kinds"),
        ],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, **ERRORS},
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        organisation = request_organisation(request)
        assert organisation is not None  # the permission guarantees it
        masked = request.query_params.get("masked", "").lower() in {"1", "true", "yes"}
        lines = reviewer_examples_jsonl(
            organisation=organisation,
            sees_personal_data=request_sees_personal_data(request) and not masked,
            kinds=request.query_params.getlist("kind"),
        )
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{organisation.slug}-reviewer-examples.jsonl"'
        return response


class ModelVersionListView(APIView):
    """GET: every version the organisation's retraining made, newest first, with its slice evaluation."""

    permission_classes = [IsOrganisationAdmin]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request: Request) -> Response:
        rows = LearnedModelVersion.objects.filter(organisation=request_organisation(request))
        return Response({"results": [version_row(row) for row in rows]})


class ModelRollbackView(APIView):
    """POST: put back the version the active one of `name` replaced (none: the rules alone)."""

    permission_classes = [IsOrganisationAdmin]

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def post(self, request: Request, name: str) -> Response:
        organisation = request_organisation(request)
        assert organisation is not None  # the permission guarantees it
        try:
            row = model_rollback(organisation=organisation, name=name, user=request_user(request))
        except ModelVersionError as exc:
            return error_response(exc.code, exc.message, exc.status)
        return Response({"rolled_back": version_row(row), "current": row.replaced or None})
