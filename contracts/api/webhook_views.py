"""Webhook API: an organisation's admin sets the endpoint (URL, secret) and reads the delivery log."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_organisation, request_user
from contracts.api.errors import error_response
from contracts.api.permissions import IsOrganisationAdmin
from contracts.api.serializers import ErrorSerializer, StorableCharField
from contracts.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from contracts.webhooks.delivery import WebhookRedeliveryRefused, webhook_redeliver
from contracts.webhooks.endpoints import webhook_endpoint_configure
from contracts.webhooks.outbound import WebhookConfigError
from contracts.webhooks.signing import MIN_PLAIN_SECRET_CHARS

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 429)}
CONFLICT = {409: OpenApiResponse(ErrorSerializer)}


class WebhookConfigInputSerializer(serializers.Serializer):
    url = StorableCharField(max_length=500, help_text="An https:// URL on the public internet.")
    secret = serializers.CharField(
        required=False,
        min_length=MIN_PLAIN_SECRET_CHARS,
        max_length=200,
        trim_whitespace=False,
        help_text=(
            "whsec_ and the base64 of at least 24 random bytes (Standard Webhooks). Leave out to keep the current"
            " secret, or to have one generated for a new endpoint."
        ),
    )
    active = serializers.BooleanField(required=False, default=True)
    provisional_events = serializers.BooleanField(
        required=False, default=False, help_text="Also send result.provisional: the rules' result before the model's."
    )
    rotate_secret = serializers.BooleanField(required=False, default=False)


class WebhookEndpointSerializer(serializers.ModelSerializer):
    secret_hint = serializers.SerializerMethodField()
    previous_secret_until = serializers.DateTimeField(
        read_only=True, help_text="After a secret change, the old secret also signs deliveries until then."
    )

    class Meta:
        model = WebhookEndpoint
        fields = [
            "url",
            "active",
            "provisional_events",
            "secret_hint",
            "previous_secret_until",
            "created_at",
            "updated_at",
        ]

    def get_secret_hint(self, endpoint: WebhookEndpoint) -> str:
        """Enough to tell which secret is set: its last 4 characters (a padded key ends in `=`), as cards show."""
        return f"whsec_…{endpoint.secret[-4:]}"


class WebhookEndpointCreatedSerializer(WebhookEndpointSerializer):
    secret = serializers.CharField(
        required=False, help_text="Only when DocGate generated it now (whsec_…): shown this once, store it."
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]


class WebhookDeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event",
            "event_key",
            "state",
            "attempts",
            "last_status_code",
            "last_error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
        ]


class WebhookDeliveryFilterSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=DeliveryState.choices, required=False)


class WebhookEndpointView(APIView):
    """The organisation's webhook endpoint (admins only)."""

    permission_classes = [IsOrganisationAdmin]

    @extend_schema(responses={200: WebhookEndpointSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        endpoint = WebhookEndpoint.objects.filter(organisation=request_organisation(request)).first()
        if endpoint is None:
            return error_response("webhook_not_configured", _("No webhook endpoint is configured."), 404)
        return Response(WebhookEndpointSerializer(endpoint).data)

    @extend_schema(request=WebhookConfigInputSerializer, responses={200: WebhookEndpointCreatedSerializer, **ERRORS})
    def put(self, request: Request) -> Response:
        incoming = WebhookConfigInputSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        organisation = request_organisation(request)
        assert organisation is not None
        try:
            endpoint, generated = webhook_endpoint_configure(
                organisation=organisation,
                user=request_user(request),
                url=data["url"],
                secret=data.get("secret"),
                active=data["active"],
                rotate_secret=data["rotate_secret"],
                provisional_events=data["provisional_events"],
            )
        except WebhookConfigError as exc:
            return error_response("invalid_webhook", exc.message, 400)
        body: dict[str, Any] = dict(WebhookEndpointSerializer(endpoint).data)
        if generated is not None:
            body["secret"] = generated
        return Response(body, status=status.HTTP_200_OK)


class WebhookDeliveryListView(generics.ListAPIView):
    """The delivery log, newest first (admins only)."""

    permission_classes = [IsOrganisationAdmin]
    serializer_class = WebhookDeliverySerializer

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        deliveries = WebhookDelivery.objects.filter(organisation=request_organisation(self.request))
        filters = WebhookDeliveryFilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        if "state" in filters.validated_data:
            deliveries = deliveries.filter(state=filters.validated_data["state"])
        return deliveries.order_by("-created_at")

    @extend_schema(parameters=[WebhookDeliveryFilterSerializer], responses={200: WebhookDeliverySerializer(many=True)})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WebhookRedeliverView(APIView):
    """Send a failed delivery again (admins only); 202 with the delivery, now pending."""

    permission_classes = [IsOrganisationAdmin]

    @extend_schema(request=None, responses={202: WebhookDeliverySerializer, **ERRORS, **CONFLICT})
    def post(self, request: Request, delivery_id: Any) -> Response:
        organisation = request_organisation(request)
        assert organisation is not None
        try:
            delivery = webhook_redeliver(delivery_id=delivery_id, organisation=organisation, user=request_user(request))
        except WebhookDelivery.DoesNotExist:
            return error_response("not_found", _("No such webhook delivery."), 404)
        except WebhookRedeliveryRefused as exc:
            return error_response(exc.code, exc.message, exc.status)
        return Response(WebhookDeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)
