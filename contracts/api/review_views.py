"""Review queue API: signed-in reviewers of the organisation claim, decide, edit and finalize tasks."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from contracts.api.auth import request_organisation, request_user
from contracts.api.errors import error_response
from contracts.api.permissions import IsOrganisationReviewer
from contracts.api.review_serializers import (
    DecisionInputSerializer,
    FindingDecisionSerializer,
    ReassignInputSerializer,
    ResponseInputSerializer,
    ReviewFilterSerializer,
    ReviewTaskDetailSerializer,
    ReviewTaskSerializer,
)
from contracts.api.serializers import ErrorSerializer, ResultSerializer
from contracts.models import Organisation, ReviewState, ReviewTask
from contracts.review.workflow import (
    ReviewError,
    review_finding_decide,
    review_response_edit,
    review_task_claim,
    review_task_finalize,
    review_task_reassign,
    review_task_release,
)

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 409, 429)}
FINALIZED = inline_serializer("FinalizeResponse", {"task": ReviewTaskSerializer(), "result": ResultSerializer()})


class ReviewTaskViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The organisation's review queue: gate holds first, then uncertainty; within a priority the results the
    models were least sure of first (their corrections teach the most), then the oldest."""

    permission_classes = [IsOrganisationReviewer]
    lookup_value_regex = "[0-9a-fA-F-]{36}"

    def get_queryset(self) -> QuerySet[ReviewTask]:
        tasks = ReviewTask.objects.filter(organisation=request_organisation(self.request)).select_related(
            "document", "claimed_by", "finalized_by", "final_result"
        )
        if self.action == "list":
            filters = ReviewFilterSerializer(data=self.request.query_params)
            filters.is_valid(raise_exception=True)
            if "state" in filters.validated_data:
                tasks = tasks.filter(state=filters.validated_data["state"])
        finalized_last = Case(
            When(state=ReviewState.FINALIZED, then=Value(1)), default=Value(0), output_field=IntegerField()
        )
        return tasks.order_by(finalized_last, "-priority", "-uncertainty", "created_at")

    def get_serializer_class(self) -> Any:
        return ReviewTaskSerializer if self.action == "list" else ReviewTaskDetailSerializer

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, ReviewError):
            return error_response(exc.code, exc.message, exc.status)
        return super().handle_exception(exc)

    def _organisation(self) -> Organisation:
        organisation = request_organisation(self.request)
        assert organisation is not None  # the permission guarantees it
        return organisation

    def _detail(self, task: ReviewTask) -> Response:
        return Response(ReviewTaskDetailSerializer(self.get_queryset().get(pk=task.pk)).data)

    @extend_schema(parameters=[ReviewFilterSerializer], responses={200: ReviewTaskSerializer(many=True), **ERRORS})
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    @extend_schema(request=None, responses={200: ReviewTaskDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def claim(self, request: Request, pk: str) -> Response:
        """Claim the task (or renew one's claim); a live claim by someone else is a 409."""
        task = review_task_claim(task_id=pk, user=request_user(request), organisation=self._organisation())
        return self._detail(task)

    @extend_schema(request=None, responses={200: ReviewTaskDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def release(self, request: Request, pk: str) -> Response:
        """Give the task back to the queue."""
        task = review_task_release(task_id=pk, user=request_user(request), organisation=self._organisation())
        return self._detail(task)

    @extend_schema(request=DecisionInputSerializer, responses={200: FindingDecisionSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def decisions(self, request: Request, pk: str) -> Response:
        """Approve, correct or reject one finding; a later decision on the same finding replaces it."""
        incoming = DecisionInputSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        decision = review_finding_decide(
            task_id=pk,
            user=request_user(request),
            organisation=self._organisation(),
            finding_id=data["finding_id"],
            decision=data["decision"],
            corrected=data.get("corrected"),
            note=data["note"],
        )
        return Response(FindingDecisionSerializer(decision).data)

    @extend_schema(request=ResponseInputSerializer, responses={200: ReviewTaskDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"], url_path="response")
    def response_edit(self, request: Request, pk: str) -> Response:
        """Replace the outgoing response text."""
        incoming = ResponseInputSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        task = review_response_edit(
            task_id=pk,
            user=request_user(request),
            organisation=self._organisation(),
            text=incoming.validated_data["text"],
        )
        return self._detail(task)

    @extend_schema(request=None, responses={200: FINALIZED, **ERRORS})
    @action(detail=True, methods=["post"])
    def finalize(self, request: Request, pk: str) -> Response:
        """Write the reviewed result as a new version and mark the job done."""
        result = review_task_finalize(task_id=pk, user=request_user(request), organisation=self._organisation())
        task = self.get_queryset().get(pk=result.provenance["review_task"])
        shown = ResultSerializer(result, context=self.get_serializer_context()).data  # a reviewer's: in full
        return Response({"task": ReviewTaskSerializer(task).data, "result": shown})

    @extend_schema(request=ReassignInputSerializer, responses={200: ReviewTaskDetailSerializer, **ERRORS})
    @action(detail=True, methods=["post"])
    def reassign(self, request: Request, pk: str) -> Response:
        """Hand the task to another reviewer (admins only)."""
        incoming = ReassignInputSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        to_user = get_user_model().objects.filter(username=incoming.validated_data["username"]).first()
        if to_user is None:
            # The same answer as for a user of another organisation: usernames elsewhere are none of our business.
            return error_response(
                "invalid_assignee", _("The new assignee must be a reviewer of this organisation."), 400
            )
        task = review_task_reassign(
            task_id=pk, admin_user=request_user(request), to_user=to_user, organisation=self._organisation()
        )
        return self._detail(task)
