"""Portal pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """Landing page: what DocGate is and where the API lives."""
    return render(request, "frontend/home.html")
