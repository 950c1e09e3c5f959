"""List pagination: `page` and `page_size` (default 50, at most 200)."""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class PageSizePagination(PageNumberPagination):
    """Pages of 50 by default; a caller may ask for `page_size` up to 200."""

    page_size_query_param = "page_size"
    max_page_size = 200
