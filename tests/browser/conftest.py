"""Headless Chromium from Debian driven by Playwright; never a downloaded browser (`playwright install` is not run).

Browser tests skip when chromium or Playwright is missing, except with CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import IN_CI

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Playwright's sync API runs an event loop in this thread; the test's own ORM calls are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"{reason} — with CI=true browser tests must run", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = os.environ.get("DOCGATE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        _unavailable("browser tests need Debian's chromium (`apt-get install chromium`; `make test` does it as root)")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    """One headless Chromium for the session; every launch gets a fresh temporary profile from Playwright."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("browser tests need the `playwright` package (tests/requirements.txt)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def new_page(browser: Any, live_server: Any) -> Iterator[Any]:
    """Open pages in separate contexts (one cookie jar per actor); fail the test on any JavaScript dialog."""
    contexts: list[Any] = []

    def make() -> Any:
        viewport = {"width": 1400, "height": 1000}
        context = browser.new_context(base_url=live_server.url, viewport=viewport, locale="zh-CN")
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.on("dialog", lambda dialog: pytest.fail(f"unexpected JavaScript dialog: {dialog.message}"))
        return page

    yield make
    for context in contexts:
        context.close()


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as a test artifact."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page: Any, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("[data-testid=login-submit]")
    page.wait_for_url("**/jobs/")
