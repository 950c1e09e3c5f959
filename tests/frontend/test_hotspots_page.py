"""The hotspots page: the burst first with the tickets behind it, the chart from the project's own static files.

Alice submits for Acme, whose hotline holds 300 public tickets of the last half year and a planted burst; Oscar
administers Globex, which must see none of them.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.utils import timezone

from frontend import hotspot_views
from tests.conftest import IN_CI
from tests.hotspot_corpus import BURST_IDS, corpus, recent_start, store_tickets

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme_hotline(actors: Any) -> dict[str, str]:
    return store_tickets(actors.acme, corpus(limit=300, start=recent_start(timezone.now())))


def _page(client: Client, user: Any, query: str = "") -> str:
    client.force_login(user)
    response = client.get(f"/hotspots/{query}")
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_shows_the_burst_first_with_the_tickets_behind_it(actors: Any, acme_hotline: dict[str, str]) -> None:
    html = _page(Client(), actors.alice)
    assert "<h1>热点</h1>" in html  # Chinese first
    first = html.split('data-testid="hotspot" data-rank="1"')[1].split('data-testid="hotspot" data-rank="2"')[0]
    assert "A3区枫林路" in first and "枫林路工地夜间施工噪音扰民" in first
    linked = set(re.findall(r'href="/documents/([0-9a-f-]{36})/"', first))
    assert {acme_hotline[i] for i in BURST_IDS} <= linked
    assert 'id="hotspot-data"' in html and 'data-testid="nav-hotspots"' in html


def test_an_outsider_sees_none_of_another_organisations_hotspots(actors: Any, acme_hotline: dict[str, str]) -> None:
    html = _page(Client(), actors.oscar)
    assert 'data-testid="no-hotspots"' in html and "枫林路" not in html


def test_the_page_says_so_when_the_chart_library_is_missing(
    actors: Any, acme_hotline: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hotspot_views, "ECHARTS", "frontend/vendor/absent.min.js")
    html = _page(Client(), actors.alice, "?window=month")
    notice = html.split('id="chart-missing"')[1].split(">")[0]
    assert "hidden" not in notice and "图表库缺失：静态文件中找不到 frontend/vendor/absent.min.js" in html
    assert '<script src="/static/frontend/vendor/' not in html


def test_the_chart_comes_from_the_projects_static_files_never_a_cdn(actors: Any, acme_hotline: dict[str, str]) -> None:
    if finders.find(hotspot_views.ECHARTS) is None:
        message = "frontend/static/frontend/vendor/echarts.min.js is missing: `make charts` (make install) builds it"
        pytest.fail(message) if IN_CI else pytest.skip(message)
    html = _page(Client(), actors.alice)
    assert '<script src="/static/frontend/vendor/echarts.min.js"></script>' in html
    assert not re.search(r"<script[^>]+src=\"(?:https?:)?//", html)
    assert re.search(r'id="chart-missing"[^>]*hidden', html)


def test_choices_that_are_not_valid_show_the_defaults(actors: Any, acme_hotline: dict[str, str]) -> None:
    html = _page(Client(), actors.alice, "?window=year&top=x")
    assert "部分选项无效" in html and 'data-rank="1"' in html


def test_each_visit_spends_one_of_the_users_reads(actors: Any, settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hs"}}
    settings.DOCGATE_THROTTLE_READ = (2, 86_400)
    client = Client()
    client.force_login(actors.alice)
    assert [client.get("/hotspots/").status_code for _ in range(3)] == [200, 200, 429]
    assert client.post("/hotspots/").status_code == 405
