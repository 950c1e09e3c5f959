"""Full-text search over an organisation's documents, for Chinese: any run of characters inside a sentence (no
word boundaries, no tokenising on spaces), ranked by hits then recency, with snippets whose offsets point into the
document's text.

The index is of characters, not words. PostgreSQL: a pg_trgm GIN index on UPPER(text), the expression Django's
`icontains` compares, so that it serves queries of three characters or more, and a GIN index of the text's
character bigrams (migration 0019) for queries of two, most Chinese words. SQLite: an FTS5 table with the
trigram tokenizer, kept in step with contracts_document by triggers (migration 0014), so that every write of the
text (intake, extraction's queryset update) reaches it; FTS5 has no bigram tokenizer, so there queries of one or
two characters read the newest days' text with LIKE (a common word stops there) and then make one pass over the
FTS5 table's text (`documents_scanned`); on PostgreSQL one-character queries read the text with LIKE, newest days
first (`_newest_holding`: a common character stops early, a rare one reads the whole history).

Callers who see personal data masked search the masked text: the index finds candidates in the text as sent, the
newest RANK_WINDOW are masked and looked at again (`contracts.tenancy.personal_data`, the portal's job search
policy), so no one finds a document by what is masked for them. Masking is not indexed: it follows each new
result and reviewer correction, which the index would have to follow too, and masking only ever hides characters,
so the masked matches are a subset of the raw ones.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection
from django.db.models import BooleanField, F, IntegerField, QuerySet, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Length, Lower, Replace
from django.utils import timezone
from django.utils.translation import gettext as _

from contracts.models import Document, Organisation
from contracts.tenancy.personal_data import MASKED_SEARCH_LIMIT, latest_personal_findings, text_masked

QUERY_MAX_LENGTH = 100
# The trigram index serves queries this long and longer.
INDEXED_LENGTH = 3
# PostgreSQL's bigram index (migration 0019) serves queries of exactly two characters; it must be written as indexed.
BIGRAM_LENGTH = 2
BIGRAM_EXPRESSION = 'docgate_bigrams(UPPER("contracts_document"."text"))'
PAGE_SIZE = 20
# A search ranks the newest this many matches (no more than a masked search may mask): a common word matches a tenth
# of a large history, which no one pages through, and reading every match would make its cost grow with the
# history (tests/benchmarks/bench_search.py). The page says when older matches were left out.
RANK_WINDOW = min(500, MASKED_SEARCH_LIMIT)
# The newest matches are looked for in widening spans of days, then in all time: the database then combines the
# trigram index with the created_at index and reads only the matches of the span, not every match of the history.
SPANS_DAYS = (1, 7, 30, 90, 365)
# Where no index serves the query (SQLite, one or two characters), a common word is read in the newest days this
# many spans (it stops there), and anything else in one pass over all the text (`documents_scanned`).
SCANNED_SPANS = 2
SNIPPETS = 3
# Characters of context either side of a hit in a snippet.
SNIPPET_CONTEXT = 30
SQLITE_INDEX = "contracts_document_search"


class SearchQueryError(ValueError):
    """A query DocGate cannot search for; `code` names why (the API's error code)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Snippet:
    """A piece of a document's text around hits: `text` is text[offset:offset + len(text)]; each highlight is a
    [start, end) span of the document's text (not of the snippet)."""

    text: str
    offset: int
    highlights: list[tuple[int, int]]


@dataclass(frozen=True)
class SearchHit:
    document: Document
    hits: int
    snippets: list[Snippet]


@dataclass(frozen=True)
class SearchPage:
    hits: list[SearchHit] = field(default_factory=list)
    page: int = 1
    has_next: bool = False
    # More documents matched than a search ranks (RANK_WINDOW): older ones are left out.
    truncated: bool = False


def search_query_clean(query: str | None) -> str:
    """The query stripped of surrounding white space; raises SearchQueryError if empty, too long, or holding a NUL
    or a character that is no character (a lone surrogate, a control)."""
    query = (query or "").strip()
    if not query:
        raise SearchQueryError("query_empty", _("Give something to search for."))
    if len(query) > QUERY_MAX_LENGTH:
        raise SearchQueryError("query_too_long", _("A query is at most %(n)s characters.") % {"n": QUERY_MAX_LENGTH})
    if "\x00" in query:
        raise SearchQueryError("query_nul", _("A query must not hold a NUL character (U+0000)."))
    if any(unicodedata.category(ch) in ("Cs", "Cc") for ch in query):
        raise SearchQueryError("query_control", _("A query must not hold control characters or lone surrogates."))
    return query


def hit_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where the query occurs in the text, ignoring case, without overlaps: spans of the text itself."""
    return [m.span() for m in re.finditer(re.escape(query), text, flags=re.IGNORECASE)]


def snippets_of(text: str, spans: list[tuple[int, int]], limit: int = SNIPPETS) -> list[Snippet]:
    """Up to `limit` snippets around the spans; hits close together share one snippet."""
    found: list[Snippet] = []
    index = 0
    while index < len(spans) and len(found) < limit:
        start = max(0, spans[index][0] - SNIPPET_CONTEXT)
        end = min(len(text), spans[index][1] + SNIPPET_CONTEXT)
        inside = [spans[index]]
        index += 1
        while index < len(spans) and spans[index][1] <= end:
            inside.append(spans[index])
            index += 1
        found.append(Snippet(text=text[start:end], offset=start, highlights=inside))
    return found


def _fts_phrase(query: str) -> str:
    return '"' + query.replace('"', '""') + '"'


def documents_holding(documents: QuerySet[Document], query: str) -> QuerySet[Document]:
    """The documents whose text holds the query, ignoring case, through the trigram index where it serves, and on
    PostgreSQL the bigram index for two characters."""
    if connection.vendor == "sqlite" and len(query) >= INDEXED_LENGTH:
        sql = f"SELECT document_id FROM {SQLITE_INDEX} WHERE {SQLITE_INDEX} MATCH %s"
        return documents.filter(pk__in=RawSQL(sql, [_fts_phrase(query)]))
    if connection.vendor == "postgresql" and len(query) == BIGRAM_LENGTH == len(query.upper()):
        # Exact, not a candidate set: UPPER(text) holds the two characters UPPER(query) exactly when its bigrams
        # do. `&&` with one element means `@>`, and unlike `@>` it needs no recheck (which would compute every
        # matching row's bigrams again).
        overlaps = RawSQL(f"{BIGRAM_EXPRESSION} && ARRAY[UPPER(%s)]::text[]", [query], output_field=BooleanField())
        return documents.filter(overlaps)
    return documents.filter(text__icontains=query)


def _ranked(documents: QuerySet[Document], query: str) -> QuerySet[Document]:
    """Most hits first (counted by the database, case folded as it folds it), then newest."""
    # django-stubs type Replace's text as a Value; Django takes any expression there.
    folded = Lower(Value(query))
    removed = Length("text") - Length(Replace(Lower("text"), folded, Value("")))  # type: ignore[arg-type]
    hits = Cast(removed, IntegerField()) / Value(len(query))
    return documents.annotate(hits=hits).order_by(F("hits").desc(), "-created_at", "pk")


def documents_scanned(documents: QuerySet[Document], query: str) -> QuerySet[Document] | None:
    """SQLite, a query no index serves: the documents holding it found by one pass over the FTS5 table's copy of
    the text (narrow rows read in order, instead of every document row through the created_at index: 100,000
    tickets, a rare word, about 0.2 s against 0.8 s), `lower` folding ASCII as SQLite's LIKE does. None elsewhere."""
    if connection.vendor != "sqlite" or len(query) >= INDEXED_LENGTH:
        return None
    sql = f"SELECT document_id FROM {SQLITE_INDEX} WHERE instr(lower(text), lower(%s)) > 0"
    return documents.filter(pk__in=RawSQL(sql, [query]))


def _newest_holding(
    documents: QuerySet[Document], window: int, history: QuerySet[Document] | None = None
) -> list[uuid.UUID]:
    """The ids of the newest `window` documents, looked for in widening spans of days (SPANS_DAYS), then all; with
    `history` (`documents_scanned`), the newest days and then that one pass."""
    now = timezone.now()
    spans = SPANS_DAYS if history is None else SPANS_DAYS[:SCANNED_SPANS]
    for days in (*spans, None):
        if days is not None:
            spanned = documents.filter(created_at__gte=now - timedelta(days=days))
        else:
            spanned = history if history is not None else documents
        ids = list(spanned.order_by("-created_at").values_list("pk", flat=True)[:window])
        if len(ids) >= window:
            break
    return ids


def _hit(document: Document, text: str, query: str) -> SearchHit | None:
    spans = hit_spans(text, query)
    if not spans:
        return None
    return SearchHit(document=document, hits=len(spans), snippets=snippets_of(text, spans))


def documents_search(
    *,
    organisation: Organisation,
    query: str,
    sees_personal_data: bool,
    kind: str | None = None,
    page: int = 1,
    page_size: int = PAGE_SIZE,
) -> SearchPage:
    """One page of the organisation's documents (of `kind`, if given) whose text, as the caller may see it, holds
    the query; raises SearchQueryError for a query DocGate cannot search for."""
    query = search_query_clean(query)
    page = max(1, page)
    documents = Document.objects.filter(organisation=organisation)
    if kind:
        documents = documents.filter(kind=kind)
    ids = _newest_holding(documents_holding(documents, query), RANK_WINDOW, documents_scanned(documents, query))
    truncated = len(ids) >= RANK_WINDOW
    ranked = _ranked(Document.objects.filter(pk__in=ids), query)
    start = (page - 1) * page_size
    if sees_personal_data:
        rows = list(ranked[start : start + page_size + 1])
        hits = [h for d in rows[:page_size] if (h := _hit(d, d.text, query))]
        return SearchPage(hits=hits, page=page, has_next=len(rows) > page_size, truncated=truncated)
    shown: list[SearchHit] = []
    for document in ranked.annotate(masking_findings=latest_personal_findings()):
        findings = document.masking_findings if isinstance(document.masking_findings, list) else []
        hit = _hit(document, text_masked(document.text, findings), query)
        if hit is not None:
            shown.append(hit)
    shown.sort(key=lambda h: (-h.hits, -h.document.created_at.timestamp()))
    return SearchPage(
        hits=shown[start : start + page_size],
        page=page,
        has_next=len(shown) > start + page_size,
        truncated=truncated,
    )
