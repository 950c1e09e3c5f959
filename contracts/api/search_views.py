"""`GET /api/v1/search/`: the organisation's documents whose text holds a query (Chinese inside sentences),
ranked, with highlighted snippets."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from contracts.api.auth import request_organisation
from contracts.api.permissions import request_sees_personal_data
from contracts.api.serializers import ErrorSerializer
from contracts.models import DocumentKind
from contracts.search import PAGE_SIZE, QUERY_MAX_LENGTH, SearchPage, SearchQueryError, documents_search

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 429)}
MAX_PAGE = 1000


class SearchQuerySerializer(serializers.Serializer):
    q = serializers.CharField(
        max_length=QUERY_MAX_LENGTH, trim_whitespace=True, help_text="Characters to find, anywhere in the text."
    )
    kind = serializers.ChoiceField(choices=DocumentKind.choices, required=False)
    page = serializers.IntegerField(default=1, min_value=1, max_value=MAX_PAGE)


class SnippetSerializer(serializers.Serializer):
    text = serializers.CharField()
    offset = serializers.IntegerField(help_text="Where the snippet starts in the document's text.")
    highlights = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="[start, end) of each hit in the document's text (masked for who must not see personal data).",
    )


class SearchResultSerializer(serializers.Serializer):
    id = serializers.CharField()
    kind = serializers.CharField()
    title = serializers.CharField()
    created_at = serializers.DateTimeField()
    hits = serializers.IntegerField()
    snippets = SnippetSerializer(many=True)


class SearchPageSerializer(serializers.Serializer):
    results = SearchResultSerializer(many=True)
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    has_next = serializers.BooleanField()
    truncated = serializers.BooleanField(help_text="Masked search read its cap of matches; older ones may be missing.")


def search_page_json(found: SearchPage, page_size: int = PAGE_SIZE) -> dict[str, object]:
    return {
        "results": [
            {
                "id": str(hit.document.pk),
                "kind": hit.document.kind,
                "title": hit.document.title,
                "created_at": hit.document.created_at,
                "hits": hit.hits,
                "snippets": [
                    {"text": s.text, "offset": s.offset, "highlights": [list(h) for h in s.highlights]}
                    for s in hit.snippets
                ],
            }
            for hit in found.hits
        ],
        "page": found.page,
        "page_size": page_size,
        "has_next": found.has_next,
        "truncated": found.truncated,
    }


class SearchView(APIView):
    """The organisation's documents whose text (masked, for who must not see personal data) holds `q`: most hits
    first, then newest; up to three snippets each."""

    @extend_schema(parameters=[SearchQuerySerializer], responses={200: SearchPageSerializer, **ERRORS})
    def get(self, request: Request) -> Response:
        query = SearchQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        organisation = request_organisation(request)
        assert organisation is not None  # IsOrganisationMember
        data = query.validated_data
        try:
            found = documents_search(
                organisation=organisation,
                query=data["q"],
                kind=data.get("kind"),
                page=data["page"],
                sees_personal_data=request_sees_personal_data(request),
            )
        except SearchQueryError as exc:
            raise serializers.ValidationError({"q": [exc.message]}) from None
        return Response(SearchPageSerializer(search_page_json(found)).data)
