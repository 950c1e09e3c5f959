"""Thin API views: parse input, call one service, serialize the answer."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from contracts.api.auth import request_api_key, request_organisation, request_user
from contracts.api.errors import error_response
from contracts.api.parsers import BoundedJSONParser
from contracts.api.permissions import IsOrganisationAdmin
from contracts.api.serializers import (
    DocumentDetailSerializer,
    DocumentFilterSerializer,
    DocumentSerializer,
    ErrorSerializer,
    JobSerializer,
    ResultSerializer,
    SubmitFileSerializer,
    SubmitResponseSerializer,
    SubmitSerializer,
    SubmitTextSerializer,
    documents_with_latest,
    new_document_data,
)
from contracts.api.throttling import SubmitThrottle
from contracts.intake.idempotency import MAX_KEY_LENGTH, idempotent
from contracts.intake.submission import IntakeError, Submission, document_submit, submission_fingerprint
from contracts.models import Document, DocumentSource, Job
from contracts.rerun import job_llm_rerun

IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="Replays the first answer for the same key and body; a different body with the key is a 409.",
)
ACCEPTED = "Document accepted and queued."
DUPLICATE = "An identical document was already submitted; this is that document."
ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 404, 409, 413, 422, 429)}


class DocumentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Submit documents, list and read them, and fetch their latest result."""

    parser_classes = [BoundedJSONParser, MultiPartParser, FormParser]
    lookup_value_regex = "[0-9a-fA-F-]{36}"

    def get_queryset(self) -> QuerySet[Document]:
        # Scoping by the caller's organisation makes another organisation's id a plain 404.
        documents = Document.objects.filter(organisation=request_organisation(self.request))
        if self.action != "list":
            return documents
        documents = documents_with_latest(documents)
        filters = DocumentFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        wanted = filters.validated_data
        if "kind" in wanted:
            documents = documents.filter(kind=wanted["kind"])
        if "status" in wanted:
            documents = documents.filter(jobs__state=wanted["status"]).distinct()
        if "created_after" in wanted:
            documents = documents.filter(created_at__gte=wanted["created_after"])
        if "created_before" in wanted:
            documents = documents.filter(created_at__lt=wanted["created_before"])
        return documents.order_by("-created_at")

    def get_throttles(self) -> list[Any]:
        # A submission spends the submit budget, not the read budget.
        return [SubmitThrottle()] if self.action == "create" else super().get_throttles()

    def get_serializer_class(self) -> Any:
        return DocumentDetailSerializer if self.action == "retrieve" else DocumentSerializer

    @extend_schema(parameters=[DocumentFilterSerializer], responses={200: DocumentSerializer(many=True), **ERRORS})
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request={"application/json": SubmitTextSerializer, "multipart/form-data": SubmitFileSerializer},
        parameters=[IDEMPOTENCY_HEADER],
        responses={201: SubmitResponseSerializer, 200: SubmitResponseSerializer, **ERRORS},
        summary="Submit a contract or ticket (JSON text or multipart file)",
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # A body past the limit, or with a malformed Content-Length, was refused by RequestBodyLimitMiddleware.
        try:
            incoming = SubmitSerializer(data=request.data)
        except RequestDataTooBig:
            return error_response("file_too_large", _("The request body is too large."), 413)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        upload = data.get("file")
        if upload is not None and upload.size > settings.DOCGATE_MAX_UPLOAD_BYTES:
            raise IntakeError(
                "file_too_large",
                _("The file exceeds the limit of %(n)s bytes.") % {"n": settings.DOCGATE_MAX_UPLOAD_BYTES},
                413,
            )
        submission = _submission(data, upload)
        organisation = request_organisation(request)
        assert organisation is not None
        key = request.META.get("HTTP_IDEMPOTENCY_KEY", "").strip()
        if len(key) > MAX_KEY_LENGTH:
            return error_response("invalid_idempotency_key", _("Idempotency-Key is longer than 255 characters."), 400)

        def answer() -> tuple[int, Any]:
            outcome = document_submit(
                organisation=organisation,
                submission=submission,
                user=request_user(request),
                api_key=request_api_key(request),
            )
            if not outcome.duplicate:
                document = new_document_data(outcome.document, outcome.job)
                return status.HTTP_201_CREATED, {"document": document, "duplicate": False, "message": ACCEPTED}
            body = SubmitResponseSerializer(
                {"document": outcome.document, "duplicate": True, "message": DUPLICATE}
            ).data
            return status.HTTP_200_OK, body

        if not key:
            answer_status, body = answer()
            return Response(body, status=answer_status)
        fingerprint = submission_fingerprint(submission)
        stored, replayed = idempotent(organisation=organisation, key=key, fingerprint=fingerprint, answer=answer)
        return Response(stored.body, status=stored.status, headers={"Idempotent-Replayed": "true"} if replayed else {})

    @extend_schema(responses={200: ResultSerializer, **{code: ERRORS[code] for code in (401, 404, 429)}})
    @action(detail=True, methods=["get"])
    def result(self, request: Request, pk: str | None = None) -> Response:
        """The latest result version (the reviewed one once a reviewer has finalized)."""
        document = self.get_object()
        result = document.latest_result()
        if result is None:
            job = document.latest_job()
            return error_response(
                "result_not_ready", _("The document has no result yet."), 404, job_state=job.state if job else None
            )
        return Response(ResultSerializer(result, context=self.get_serializer_context()).data)


class JobViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Job status: state, attempts, per-stage timings, errors."""

    serializer_class = JobSerializer
    lookup_value_regex = "[0-9a-fA-F-]{36}"

    def get_queryset(self) -> QuerySet[Job]:
        return Job.objects.filter(organisation=request_organisation(self.request))

    @extend_schema(request=None, responses={202: JobSerializer, **ERRORS}, summary="Send a job back to the model")
    @action(detail=True, methods=["post"], url_path="llm-rerun", permission_classes=[IsOrganisationAdmin])
    def llm_rerun(self, request: Request, pk: str | None = None) -> Response:
        """Ask the model again for a job that went to review because it was unavailable (admins): a new result
        version follows; the job's open review task is withdrawn."""
        job = self.get_object()
        organisation = request_organisation(request)
        assert organisation is not None
        rerun = job_llm_rerun(job_id=job.pk, organisation=organisation, user=request_user(request))
        return Response(JobSerializer(rerun).data, status=status.HTTP_202_ACCEPTED)


def _submission(data: dict[str, Any], upload: Any) -> Submission:
    """The intake submission an API request describes (a file upload or text)."""
    return Submission(
        kind=data["kind"],
        source=DocumentSource.API,
        data=upload.read() if upload is not None else None,
        text=data.get("text"),
        original_name=getattr(upload, "name", "") or "",
        title=data["title"],
        reference=data["reference"],
        metadata=data["metadata"],
    )
