"""The search page: the organisation's documents whose text holds a query, ranked, with highlighted snippets."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET

from contracts.search import SearchQueryError, Snippet, documents_search
from frontend.access import may_see_pii, member_required, org_of
from frontend.forms import SearchForm
from frontend.views import read_refused


def snippet_html(snippet: Snippet) -> SafeString:
    """The snippet's text, escaped, with each hit in <mark> (highlights are spans of the document's text)."""
    parts: list[str] = []
    at = 0
    for start, end in snippet.highlights:
        start, end = start - snippet.offset, end - snippet.offset
        parts.append(escape(snippet.text[at:start]))
        parts.append(f"<mark>{escape(snippet.text[start:end])}</mark>")
        at = end
    parts.append(escape(snippet.text[at:]))
    return mark_safe("".join(parts))  # every piece of text is escaped above


@require_GET
@member_required
def search(request: HttpRequest) -> HttpResponse:
    """Search the text of the organisation's tickets and contracts (masked, for who must not see personal data);
    one read of the user's budget."""
    refused = read_refused(request)
    if refused is not None:
        return refused
    form = SearchForm(request.GET or None)
    context: dict[str, Any] = {"form": form, "results": None}
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        try:
            found = documents_search(
                organisation=org_of(request),
                query=data["q"],
                kind=data["kind"] or None,
                page=data["page"] or 1,
                sees_personal_data=may_see_pii(request),
            )
        except SearchQueryError as exc:
            form.add_error("q", exc.message)
            status = 400
        else:
            query = request.GET.copy()
            query.pop("page", None)
            context.update(
                results=[(hit, [snippet_html(s) for s in hit.snippets]) for hit in found.hits],
                found=found,
                query=query.urlencode(),
            )
    elif request.GET:
        status = 400
    return render(request, "frontend/search.html", context, status=status)
