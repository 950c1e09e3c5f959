"""Review queue API serializers: inputs for each action, the task as a list row and in detail."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from contracts.api.result_schema import FindingsField
from contracts.api.serializers import StorableCharField
from contracts.models import AuditEvent, FindingDecision, ReviewDecision, ReviewState, ReviewTask
from contracts.review.response_check import review_response_problems
from contracts.review.workflow import MAX_RESPONSE_CHARS


def _username(user: Any) -> str | None:
    return user.get_username() if user is not None else None


class ReviewFilterSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=ReviewState.choices, required=False)


class DecisionInputSerializer(serializers.Serializer):
    finding_id = serializers.CharField(max_length=64)
    decision = serializers.ChoiceField(choices=ReviewDecision.choices)
    corrected = serializers.JSONField(
        required=False, allow_null=True, help_text="For `correct`: the finding fields to change, e.g. label or span."
    )
    note = StorableCharField(required=False, allow_blank=True, max_length=2000, default="")


class ResponseInputSerializer(serializers.Serializer):
    text = StorableCharField(allow_blank=True, trim_whitespace=False, max_length=MAX_RESPONSE_CHARS)


class ReassignInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)


class FindingDecisionSerializer(serializers.ModelSerializer):
    decided_by = serializers.SerializerMethodField()

    class Meta:
        model = FindingDecision
        fields = ["finding_id", "decision", "corrected", "note", "decided_by", "decided_at"]

    def get_decided_by(self, decision: FindingDecision) -> str | None:
        return _username(decision.decided_by)


class AuditEventSerializer(serializers.ModelSerializer):
    actor = serializers.SerializerMethodField()

    class Meta:
        model = AuditEvent
        fields = ["action", "actor", "object_type", "object_id", "before", "after", "created_at"]

    def get_actor(self, event: AuditEvent) -> str:
        if event.actor_user is not None:
            return f"user:{event.actor_user.get_username()}"
        if event.actor_api_key is not None:
            return f"api_key:{event.actor_api_key.prefix}"
        return f"system:{event.actor_system}"


class ReviewDocumentSerializer(serializers.Serializer):
    """The document a review task is about, as the queue shows it."""

    id = serializers.UUIDField()
    kind = serializers.CharField()
    title = serializers.CharField()
    reference = serializers.CharField()


class ReviewResultSerializer(serializers.Serializer):
    """The latest result version under review: its findings, those a reviewer rejected, and the draft reply."""

    version = serializers.IntegerField()
    findings = FindingsField()
    rejected_findings = FindingsField()
    review_reasons = serializers.ListField(child=serializers.CharField())
    suggested_response = serializers.CharField(allow_null=True)


class ReviewTaskSerializer(serializers.ModelSerializer):
    """A row of the review queue."""

    document = serializers.SerializerMethodField()
    job = serializers.UUIDField(source="job_id")
    claimed_by = serializers.SerializerMethodField()
    finalized_by = serializers.SerializerMethodField()
    final_result_version = serializers.SerializerMethodField()

    class Meta:
        model = ReviewTask
        fields = [
            "id",
            "state",
            "priority",
            "uncertainty",
            "reasons",
            "document",
            "job",
            "claimed_by",
            "claim_expires_at",
            "created_at",
            "finalized_at",
            "finalized_by",
            "final_result_version",
        ]

    @extend_schema_field(ReviewDocumentSerializer)
    def get_document(self, task: ReviewTask) -> dict[str, Any]:
        document = task.document
        return {"id": str(document.pk), "kind": document.kind, "title": document.title, "reference": document.reference}

    def get_claimed_by(self, task: ReviewTask) -> str | None:
        return _username(task.claimed_by)

    def get_finalized_by(self, task: ReviewTask) -> str | None:
        return _username(task.finalized_by)

    def get_final_result_version(self, task: ReviewTask) -> int | None:
        return task.final_result.version if task.final_result is not None else None


class ReviewResponseProblemSerializer(serializers.Serializer):
    """One reason a response is not fit to send, with the words that show it (offsets in the response)."""

    code = serializers.CharField()
    message = serializers.CharField()
    evidence = serializers.CharField(allow_blank=True)
    start = serializers.IntegerField(allow_null=True)
    end = serializers.IntegerField(allow_null=True)


class ReviewTaskDetailSerializer(ReviewTaskSerializer):
    """A task with what a reviewer needs: the text, the findings under review, decisions and the audit trail."""

    text = serializers.CharField(source="document.text")
    result = serializers.SerializerMethodField()
    decisions = FindingDecisionSerializer(many=True)
    audit = serializers.SerializerMethodField()
    response_check = serializers.SerializerMethodField(
        help_text="Why the response text is not fit to send as it is (a ticket's reply lacking a department, a "
        "step, a time, its own matter or place, or giving contact details that are not the organisation's); empty "
        "when it is."
    )

    class Meta(ReviewTaskSerializer.Meta):
        fields = [
            *ReviewTaskSerializer.Meta.fields, "response_text", "response_check", "text", "result", "decisions", "audit"
        ]  # fmt: skip

    @extend_schema_field(ReviewResponseProblemSerializer(many=True))
    def get_response_check(self, task: ReviewTask) -> list[dict[str, Any]]:
        return review_response_problems(task)

    @extend_schema_field(ReviewResultSerializer(allow_null=True))
    def get_result(self, task: ReviewTask) -> dict[str, Any] | None:
        result = task.document.latest_result()
        if result is None:
            return None
        data = result.data or {}
        return {
            "version": result.version,
            "findings": data.get("findings", []),
            "rejected_findings": data.get("rejected_findings", []),
            "review_reasons": data.get("review_reasons", []),
            "suggested_response": data.get("suggested_response"),
        }

    @extend_schema_field(AuditEventSerializer(many=True))
    def get_audit(self, task: ReviewTask) -> list[dict[str, Any]]:
        about_this_task = (
            Q(object_type="reviewtask", object_id=str(task.pk))
            | Q(object_type="job", object_id=str(task.job_id))
            | Q(object_type="document", object_id=str(task.document_id))
        )
        events = AuditEvent.objects.filter(about_this_task, organisation_id=task.organisation_id)
        return list(AuditEventSerializer(events.select_related("actor_user", "actor_api_key"), many=True).data)
