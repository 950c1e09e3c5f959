"""`GET /api/v1/hotspots/`: the organisation's ticket hotspots, ranked by heat, with the tickets behind them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_organisation
from contracts.api.permissions import request_sees_personal_data
from contracts.api.serializers import ErrorSerializer
from contracts.hotline.hotspots import hotspots_json, organisation_hotspots
from rules.tickets.hotspots import WINDOWS

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 429)}
MAX_TOP = 50


class HotspotQuerySerializer(serializers.Serializer):
    window = serializers.ChoiceField(choices=WINDOWS, default="week", help_text="Length of a time window.")
    period = serializers.CharField(
        default="all",
        max_length=10,
        help_text="Which windows to rank: `all` in the range, the `latest`, or the one holding a date (2026-11-30).",
    )
    top = serializers.IntegerField(default=10, min_value=1, max_value=MAX_TOP)
    min_tickets = serializers.IntegerField(default=2, min_value=1, max_value=1000)
    since = serializers.DateTimeField(required=False, help_text="Tickets created from then; default 12 windows back.")
    until = serializers.DateTimeField(required=False, help_text="… and before then; default now.")

    def validate_period(self, value: str) -> str | dt.date:
        if value in ("all", "latest"):
            return value
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise serializers.ValidationError("Use all, latest or a date such as 2026-11-30.") from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "since" in attrs and "until" in attrs and attrs["since"] >= attrs["until"]:
            raise serializers.ValidationError({"since": "since must be before until."})
        return attrs


class HotspotTicketSerializer(serializers.Serializer):
    id = serializers.CharField()
    title = serializers.CharField()
    lead = serializers.CharField(help_text="The title, else the first sentence (masked for who must not see it).")
    created_at = serializers.DateTimeField()


class HotspotTrendSerializer(serializers.Serializer):
    window = serializers.DateTimeField()
    count = serializers.IntegerField()


class HotspotSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    heat = serializers.FloatField(help_text="n·(1 + g)·(1 + ½u + ½r) + log2(1 + s); README, Hotspots.")
    ticket_ids = serializers.ListField(child=serializers.CharField())
    place = serializers.CharField()
    description = serializers.CharField()
    time_range = serializers.DictField(child=serializers.DateTimeField())
    window = serializers.DictField(child=serializers.DateTimeField())
    keywords = serializers.ListField(child=serializers.CharField())
    category = serializers.CharField(allow_null=True)
    count = serializers.IntegerField()
    previous_count = serializers.IntegerField()
    growth = serializers.FloatField()
    urgent_share = serializers.FloatField()
    repeat_share = serializers.FloatField()
    likes = serializers.IntegerField()
    against = serializers.IntegerField()
    trend = HotspotTrendSerializer(many=True)
    tickets = HotspotTicketSerializer(many=True)


class HotspotsSerializer(serializers.Serializer):
    hotspots = HotspotSerializer(many=True)
    windows = serializers.ListField(child=serializers.DateTimeField())
    window = serializers.CharField()
    since = serializers.DateTimeField()
    until = serializers.DateTimeField()
    tickets = serializers.IntegerField(help_text="Tickets analysed.")
    truncated = serializers.BooleanField(help_text="More tickets were in the range than one analysis reads.")


class HotspotsView(APIView):
    """Clusters of the organisation's tickets by topic, place and time window, hottest first."""

    @extend_schema(parameters=[HotspotQuerySerializer], responses={200: HotspotsSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        query = HotspotQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        organisation = request_organisation(request)
        assert organisation is not None  # IsOrganisationMember
        result = organisation_hotspots(
            organisation=organisation, sees_personal_data=request_sees_personal_data(request), **query.validated_data
        )
        return Response(hotspots_json(result))
