"""Repeat cases under /api/v1/cases/ (the hotline desk's `contracts.hotline.cases`): members read them, reviewers
merge and split."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from contracts.api.auth import request_organisation, request_user
from contracts.api.permissions import IsOrganisationMember, IsOrganisationReviewer
from contracts.api.serializers import ErrorSerializer
from contracts.hotline.cases import case_merge, case_split
from contracts.hotline.models import Case, CaseTicket
from contracts.models import Organisation

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 409, 429)}


class CaseTicketSerializer(serializers.ModelSerializer):
    """One ticket of a case: the document, when it came, how it joined and the evidence of a repeat."""

    document_id = serializers.UUIDField(read_only=True)
    reference = serializers.CharField(source="document.reference", read_only=True)
    title = serializers.CharField(source="document.title", read_only=True)
    created_at = serializers.DateTimeField(source="document.created_at", read_only=True)
    repeats = serializers.UUIDField(source="repeats_id", read_only=True, allow_null=True)

    class Meta:
        model = CaseTicket
        fields = ["document_id", "reference", "title", "created_at", "joined_by", "joined_at", "repeats", "evidence"]


class CaseSerializer(serializers.ModelSerializer):
    ticket_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Case
        fields = ["id", "created_at", "updated_at", "merged_into", "ticket_count"]


class CaseDetailSerializer(CaseSerializer):
    tickets = serializers.SerializerMethodField()

    class Meta(CaseSerializer.Meta):
        fields = [*CaseSerializer.Meta.fields, "tickets"]

    @extend_schema_field(CaseTicketSerializer(many=True))
    def get_tickets(self, case: Case) -> list[dict[str, Any]]:
        rows = case.tickets.select_related("document").order_by("document__created_at", "document_id")
        return list(CaseTicketSerializer(rows, many=True).data)


class CaseFilterSerializer(serializers.Serializer):
    repeats = serializers.BooleanField(required=False, help_text="true: only cases with two tickets or more")
    document = serializers.UUIDField(required=False, help_text="the case of this ticket")


class MergeInputSerializer(serializers.Serializer):
    cases = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=100)


class SplitInputSerializer(serializers.Serializer):
    documents = serializers.ListField(child=serializers.UUIDField(), min_length=1, max_length=1000)


class CaseViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The organisation's repeat cases, most recently changed first; merged cases only by their id."""

    lookup_value_regex = "[0-9a-fA-F-]{36}"

    def get_permissions(self) -> list[Any]:
        if self.action in ("merge", "split"):
            return [IsOrganisationReviewer()]
        return [IsOrganisationMember()]

    def _organisation(self) -> Organisation:
        organisation = request_organisation(self.request)
        assert organisation is not None  # the permission guarantees it
        return organisation

    def get_queryset(self) -> QuerySet[Case]:
        cases = Case.objects.filter(organisation=self._organisation()).annotate(ticket_count=Count("tickets"))
        if self.action == "list":
            filters = CaseFilterSerializer(data=self.request.query_params)
            filters.is_valid(raise_exception=True)
            cases = cases.filter(merged_into__isnull=True)
            if filters.validated_data.get("repeats"):
                cases = cases.filter(ticket_count__gte=2)
            if "document" in filters.validated_data:
                cases = cases.filter(tickets__document_id=filters.validated_data["document"])
        return cases.order_by("-updated_at", "id")

    def get_serializer_class(self) -> Any:
        return CaseSerializer if self.action == "list" else CaseDetailSerializer

    def _detail(self, case: Case, http_status: int = status.HTTP_200_OK) -> Response:
        return Response(CaseDetailSerializer(self.get_queryset().get(pk=case.pk)).data, status=http_status)

    @extend_schema(parameters=[CaseFilterSerializer], responses={200: CaseSerializer(many=True), **ERRORS})
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(request=MergeInputSerializer, responses={200: CaseDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def merge(self, request: Request, pk: str | None = None) -> Response:
        """Move every ticket of the named cases into this one (audited)."""
        target = self.get_object()
        payload = MergeInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        wanted = {str(c) for c in payload.validated_data["cases"]}
        sources = list(Case.objects.filter(organisation=self._organisation(), pk__in=wanted))
        if len(sources) != len(wanted):
            return Response(
                {"error": {"code": "not_found", "message": "No such case."}}, status=status.HTTP_404_NOT_FOUND
            )
        case_merge(organisation=self._organisation(), target=target, sources=sources, user=request_user(request))
        return self._detail(target)

    @extend_schema(request=SplitInputSerializer, responses={201: CaseDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def split(self, request: Request, pk: str | None = None) -> Response:
        """Move the named tickets of this case into a new case (audited); answers the new case."""
        case = self.get_object()
        payload = SplitInputSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        new = case_split(
            organisation=self._organisation(),
            case=case,
            document_ids=payload.validated_data["documents"],
            user=request_user(request),
        )
        return self._detail(new, status.HTTP_201_CREATED)
