"""The hotspots page in a real browser: ECharts draws the trend on a canvas, and a page without the library says so.

Alice submits for Acme, whose hotline holds 300 public tickets of the last half year and a planted burst.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.utils import timezone

from frontend.hotspot_views import ECHARTS
from tests.browser.conftest import screenshot, sign_in
from tests.conftest import IN_CI
from tests.hotspot_corpus import corpus, recent_start, store_tickets

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Pixels of the chart's canvas that are not transparent: ECharts paints axes, labels and lines on a clear canvas.
PAINTED_PIXELS = """() => {
  const canvas = document.querySelector('#hotspot-trend canvas');
  if (!canvas) return -1;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let painted = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
  return painted;
}"""


@pytest.fixture
def acme_hotline(actors: Any) -> None:
    if finders.find(ECHARTS) is None:
        message = f"{ECHARTS} is missing from the static files: `make charts` (make install) builds it"
        pytest.fail(message) if IN_CI else pytest.skip(message)
    store_tickets(actors.acme, corpus(limit=300, start=recent_start(timezone.now())))


def test_the_trend_chart_is_drawn_with_the_burst_as_the_first_hotspot(acme_hotline: None, new_page: Any) -> None:
    page = new_page()
    sign_in(page, "alice", "alice-password-1")
    page.click("[data-testid=nav-hotspots]")
    page.wait_for_selector("#hotspot-trend[data-drawn=true] canvas")
    assert page.locator("#chart-missing").is_hidden()
    canvas = page.locator("#hotspot-trend canvas").first.bounding_box()
    assert canvas is not None and canvas["width"] > 600 and canvas["height"] > 300
    painted = page.evaluate(PAINTED_PIXELS)
    assert painted > 2000, f"the chart's canvas is blank ({painted} painted pixels)"
    first = page.locator("[data-testid=hotspot][data-rank='1']")
    assert "A3区枫林路" in first.locator("[data-testid=hotspot-place]").inner_text()
    assert first.locator("[data-testid=hotspot-ticket]").count() >= 12
    screenshot(page, "hotspots")
    first.locator("[data-testid=hotspot-ticket]").first.click()
    page.wait_for_url("**/documents/*/")


def test_a_page_whose_chart_library_does_not_load_says_so(acme_hotline: None, new_page: Any) -> None:
    page = new_page()
    page.route("**/echarts.min.js", lambda route: route.abort())
    sign_in(page, "alice", "alice-password-1")
    page.goto("/hotspots/")
    page.wait_for_selector("#chart-missing", state="visible")
    assert "图表库（frontend/vendor/echarts.min.js）未能加载" in page.locator("#chart-missing").inner_text()
    assert page.locator("#hotspot-trend canvas").count() == 0
    screenshot(page, "hotspots-chart-missing")
