"""API input and output serializers (input → service → output)."""

from __future__ import annotations

import functools
import json
from typing import Any, cast

from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from contracts.api.fields import PastMomentField
from contracts.api.permissions import context_sees_personal_data
from contracts.api.progress_serializers import DeadlineSerializer
from contracts.api.result_schema import ResultDataField
from contracts.hotline.deadlines.clock import deadline_data
from contracts.models import Document, DocumentKind, Job, JobState, Result
from contracts.storable import UNSTORABLE_MESSAGE, json_storable
from contracts.tenancy.personal_data import document_text_masked, result_data_masked

METADATA_FIELDS = ("channel", "region", "caller_reference")


class MetadataField(serializers.JSONField):
    """Free metadata: a JSON object (or, in multipart forms, a JSON-encoded string) of bounded size."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, str):
            try:
                data = json.loads(data) if data.strip() else {}
            except json.JSONDecodeError as exc:
                raise serializers.ValidationError("metadata must be a JSON object.") from exc
        if not isinstance(data, dict):
            raise serializers.ValidationError("metadata must be a JSON object.")
        if not json_storable(data):
            raise serializers.ValidationError(f"metadata {UNSTORABLE_MESSAGE}.")
        if len(json.dumps(data, ensure_ascii=False)) > 10_000:
            raise serializers.ValidationError("metadata is larger than 10,000 characters.")
        return data


class SubmitSerializer(serializers.Serializer):
    """A document to analyse: `text` (JSON or form) or `file` (multipart), never both."""

    kind = serializers.ChoiceField(choices=DocumentKind.choices)
    text = serializers.CharField(required=False, trim_whitespace=False, allow_blank=True)
    file = serializers.FileField(required=False, allow_empty_file=True)
    title = serializers.CharField(required=False, allow_blank=True, max_length=300, default="")
    reference = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        default="",
        help_text="The caller's own reference, e.g. a ticket number.",
    )
    channel = serializers.CharField(
        required=False, allow_blank=True, max_length=50, help_text="Ticket channel, e.g. phone, web, app."
    )
    region = serializers.CharField(required=False, allow_blank=True, max_length=100)
    received_at = PastMomentField(
        required=False,
        help_text="A ticket: when the citizen called or wrote (ISO 8601 with timezone); its time limit counts from "
        "here. Default: when DocGate received it.",
    )
    metadata = MetadataField(required=False, default=dict)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        has_text, has_file = "text" in attrs, "file" in attrs
        if has_text == has_file:
            raise serializers.ValidationError(
                {"non_field_errors": ["Send either `text` or `file`, not both."]}
                if has_text
                else {"text": ["Send `text` or a `file`."]}
            )
        if has_text and not attrs["text"].strip():
            raise serializers.ValidationError({"text": ["The text is empty."]})
        metadata = dict(attrs.get("metadata") or {})
        for name in ("channel", "region"):
            if attrs.get(name):
                metadata[name] = attrs[name]
        if "received_at" in attrs:
            metadata["received_at"] = attrs.pop("received_at").isoformat()
        elif "received_at" in metadata:  # the same check for a time sent inside metadata
            try:
                metadata["received_at"] = PastMomentField().to_internal_value(metadata["received_at"]).isoformat()
            except serializers.ValidationError as exc:
                raise serializers.ValidationError({"received_at": exc.detail}) from None
        attrs["metadata"] = metadata
        return attrs


class SubmitTextSerializer(SubmitSerializer):
    """A submission as JSON text (schema only: `SubmitSerializer` validates both forms)."""

    text = serializers.CharField(trim_whitespace=False)
    file = None  # type: ignore[assignment]  # None takes the inherited field out (DRF)


class SubmitFileSerializer(SubmitSerializer):
    """A submission as a multipart file (schema only: `SubmitSerializer` validates both forms)."""

    text = None  # type: ignore[assignment]  # None takes the inherited field out (DRF)
    file = serializers.FileField(allow_empty_file=True)


class JobErrorField(serializers.JSONField):
    """A failed job's error as callers see it: stage, code, type and message. The stored trace names DocGate's code
    and paths: it stays in the database, for staff in the Django admin."""

    SHOWN = ("stage", "code", "type", "message")

    def to_representation(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {key: value[key] for key in self.SHOWN if key in value}


class JobSerializer(serializers.ModelSerializer):
    error = JobErrorField(read_only=True, allow_null=True)

    class Meta:
        model = Job
        fields = [
            "id",
            "state",
            "attempts",
            "created_at",
            "started_at",
            "finished_at",
            "stage_timings",
            "review_reasons",
            "degraded",
            "error",
            "phase",
            "llm_waiting_since",
        ]


class DocumentSerializer(serializers.ModelSerializer):
    job = serializers.SerializerMethodField()
    result_version = serializers.SerializerMethodField()
    deadline = serializers.SerializerMethodField()

    class Meta:
        model = Document
        fields = [
            "id",
            "kind",
            "source",
            "title",
            "original_name",
            "content_type",
            "size_bytes",
            "sha256",
            "encoding",
            "encoding_confidence",
            "reference",
            "metadata",
            "created_at",
            "job",
            "result_version",
            "deadline",
        ]

    @extend_schema_field(DeadlineSerializer(allow_null=True))
    def get_deadline(self, document: Document) -> dict[str, Any] | None:
        """A ticket's time limit and progress (null for a contract, and for a ticket before its first result or
        progress report)."""
        return deadline_data(getattr(document, "ticket_deadline", None))

    @extend_schema_field(JobSerializer(allow_null=True))
    def get_job(self, document: Document) -> dict[str, Any] | None:
        job = self._newest_job(document)
        return JobSerializer(job).data if job else None

    def _newest_job(self, document: Document) -> Job | None:
        """The newest job: the one a list loaded with its page, else one query."""
        newest: list[Job] | None = getattr(document, "jobs_newest", None)  # `documents_with_latest`
        if newest is not None:
            return newest[0] if newest else None
        return document.latest_job()

    def get_result_version(self, document: Document) -> int | None:
        if hasattr(document, "latest_version"):  # `documents_with_latest`
            return cast(int | None, document.latest_version)
        result = document.latest_result()
        return result.version if result else None


class DocumentColumnsSerializer(DocumentSerializer):
    """A document's own columns: `DocumentSerializer` without its job and result version."""

    job = None  # type: ignore[assignment]  # None takes the inherited field out (DRF)
    result_version = None  # type: ignore[assignment]
    deadline = None  # type: ignore[assignment]

    class Meta(DocumentSerializer.Meta):
        fields = [name for name in DocumentSerializer.Meta.fields if name not in {"job", "result_version", "deadline"}]


@functools.cache
def _intake_serializers() -> tuple[DocumentColumnsSerializer, JobSerializer]:
    return DocumentColumnsSerializer(), JobSerializer()


def new_document_data(document: Document, job: Job) -> dict[str, Any]:
    """`DocumentSerializer`'s representation of a document intake has just stored with its first job (no result
    yet), by serializers made once per process: a ModelSerializer rebuilds its fields from the model each time it
    is made, which was a fifth of an upload's server time."""
    columns, job_columns = _intake_serializers()
    return {
        **columns.to_representation(document),
        "job": job_columns.to_representation(job),
        "result_version": None,
        "deadline": None,
    }


def documents_with_latest(documents: QuerySet[Document]) -> QuerySet[Document]:
    """Load each document's jobs (newest first) and latest result version with the page itself, so that a list
    costs the same few queries whatever its length."""
    newest_jobs = Prefetch("jobs", queryset=Job.objects.order_by("-created_at"), to_attr="jobs_newest")
    latest = Result.objects.filter(document=OuterRef("pk")).order_by("-version").values("version")[:1]
    return (
        documents.select_related("ticket_deadline")
        .prefetch_related(newest_jobs)
        .annotate(latest_version=Subquery(latest))
    )


class DocumentDetailSerializer(DocumentSerializer):
    """A document with its text: personal data masked for a caller who does not see it."""

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "text"]

    def to_representation(self, document: Document) -> dict[str, Any]:
        shown: dict[str, Any] = super().to_representation(document)
        if not context_sees_personal_data(self.context):
            shown["text"] = document_text_masked(document)
        return shown


class SubmitResponseSerializer(serializers.Serializer):
    document = DocumentSerializer()
    duplicate = serializers.BooleanField()
    message = serializers.CharField()


class ResultSerializer(serializers.ModelSerializer):
    """A result version: its data with personal data masked for a caller who does not see it."""

    document = serializers.UUIDField(source="document_id")
    job = serializers.UUIDField(source="job_id")
    data = ResultDataField(read_only=True)  # type: ignore[assignment]  # a declared field, not Serializer.data

    class Meta:
        model = Result
        fields = ["document", "job", "version", "final", "data", "provenance", "created_at"]

    def to_representation(self, result: Result) -> dict[str, Any]:
        shown: dict[str, Any] = super().to_representation(result)
        if not context_sees_personal_data(self.context) and isinstance(shown.get("data"), dict):
            shown["data"] = result_data_masked(shown["data"])
        return shown


class DocumentFilterSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=DocumentKind.choices, required=False)
    status = serializers.ChoiceField(choices=JobState.choices, required=False)
    created_after = serializers.DateTimeField(required=False)
    created_before = serializers.DateTimeField(required=False)


class ErrorDetailSerializer(serializers.Serializer):
    """What went wrong: a stable code, a message for people, and for `invalid` the message per field."""

    code = serializers.CharField(help_text="invalid, not_found, throttled, file_too_large, result_not_ready, …")
    message = serializers.CharField()
    # DRF's metaclass takes declared fields off the class, so this does not shadow Serializer.fields.
    fields = serializers.DictField(  # type: ignore[assignment]
        required=False, help_text="`invalid`: the messages per field, as {field: [message, …]}"
    )
    job_state = serializers.CharField(
        required=False, allow_null=True, help_text="`result_not_ready`: the document's job state"
    )


class ErrorSerializer(serializers.Serializer):
    """{"error": {"code": ..., "message": ...}}"""

    error = ErrorDetailSerializer()
