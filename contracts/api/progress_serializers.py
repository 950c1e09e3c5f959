"""The progress API's input and output: a hotline platform's report, and a ticket's deadline as shown."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from contracts.api.fields import PastMomentField
from contracts.hotline.deadlines.models import Progress

REPORTED = (Progress.DISPATCHED, Progress.ANSWERED, Progress.CLOSED, Progress.RETURNED)


class ProgressSerializer(serializers.Serializer):
    """One progress report from the hotline platform."""

    status = serializers.ChoiceField(choices=[(s.value, s.label) for s in REPORTED])
    at = PastMomentField(required=False, help_text="When it happened (ISO 8601 with timezone); default: now.")
    department = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
    reason = serializers.CharField(
        required=False, allow_blank=True, max_length=2000, default="", help_text="Required for `returned` (退单)."
    )
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["status"] == Progress.RETURNED and not attrs["reason"].strip():
            raise serializers.ValidationError({"reason": ["A returned ticket needs the reason (退单理由)."]})
        if attrs["status"] == Progress.DISPATCHED and not attrs["department"].strip():
            raise serializers.ValidationError({"department": ["Name the department the ticket was dispatched to."]})
        return attrs


class DeadlineSerializer(serializers.Serializer):
    """A ticket's time limit and progress (`deadline` of a ticket; null for a contract)."""

    received_at = serializers.DateTimeField()
    tier = serializers.CharField(allow_null=True, help_text="emergency | utilities | general | complex")
    limit = serializers.DictField(allow_null=True, help_text='{"value": 7, "unit": "working_days" | "hours"}')
    due_at = serializers.DateTimeField(allow_null=True, help_text="null until the ticket's first result")
    due_soon_at = serializers.DateTimeField(allow_null=True)
    state = serializers.ChoiceField(choices=["on_time", "due_soon", "overdue"])
    clock_stopped_at = serializers.DateTimeField(allow_null=True, help_text="answered or closed")
    progress = serializers.DictField(help_text="status, at, department, return_reason")
