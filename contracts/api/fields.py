"""Serializer fields the API shares beyond DRF's own."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rest_framework import serializers

from contracts.hotline.deadlines.clock import ReceivedAtInvalid, received_at_check


class PastMomentField(serializers.DateTimeField):
    """An ISO 8601 date and time with its timezone (`…+08:00`, `…Z`) that has already happened (give or take
    DOCGATE_RECEIVED_AT_SKEW_S of clock drift). A time without a timezone is refused rather than guessed."""

    def to_internal_value(self, value: Any) -> datetime:
        if not isinstance(value, str):
            raise serializers.ValidationError("Send an ISO 8601 date and time string with its timezone.")
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise serializers.ValidationError(
                "Not an ISO 8601 date and time (e.g. 2026-12-01T09:30:00+08:00)."
            ) from None
        try:
            return received_at_check(moment)
        except ReceivedAtInvalid as exc:
            raise serializers.ValidationError(str(exc).replace("received_at ", "The time ", 1)) from None
