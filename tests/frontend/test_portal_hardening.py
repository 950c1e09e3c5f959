"""The portal's answers to the security review (issue 26): settings kept as they are shown, budgets on searching
and signing in, the job list read from an index.

Oscar administers Globex; Alice submits for Acme.
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest

from contracts.models import WebhookEndpoint
from contracts.webhooks.endpoints import webhook_endpoint_configure

pytestmark = pytest.mark.django_db

# Budgets counted in this process's memory, fresh for each test (the cache is not what is tested here).
LOCAL_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "hardening"}}


class _RenderedForm(HTMLParser):
    """What a browser would post from the form with `action`: text inputs' values and the ticked checkboxes."""

    def __init__(self, action: str) -> None:
        super().__init__()
        self.action, self.inside = action, False
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.inside = attributes.get("action") == self.action
        elif tag == "input" and self.inside and attributes.get("name"):
            name, kind = str(attributes["name"]), attributes.get("type")
            if kind == "checkbox":
                if "checked" in attributes:
                    self.fields[name] = "on"
            else:
                self.fields[name] = attributes.get("value") or ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False


def rendered_form(page: str, action: str) -> dict[str, str]:
    parser = _RenderedForm(action)
    parser.feed(page)
    return dict(parser.fields)


def test_saving_the_webhook_form_as_shown_keeps_provisional_events(client: Any, actors: Any, settings: Any) -> None:
    """Globex asked for provisional events through the API; Oscar saves the portal's webhook form untouched (a
    new secret, say): the endpoint still gets them. Unticking the box is what switches them off."""
    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    url = "http://127.0.0.1:9/hook"
    webhook_endpoint_configure(organisation=actors.globex, user=None, url=url, provisional_events=True)
    client.force_login(actors.oscar)
    form = rendered_form(client.get("/organisation/").content.decode(), "/organisation/webhook/")
    assert form.get("url") == url and form.get("active") == "on"

    assert client.post("/organisation/webhook/", {**form, "rotate_secret": "on"}).status_code == 302
    assert WebhookEndpoint.objects.get(organisation=actors.globex).provisional_events is True

    unticked = {name: value for name, value in form.items() if name != "provisional_events"}
    assert client.post("/organisation/webhook/", unticked).status_code == 302
    assert WebhookEndpoint.objects.get(organisation=actors.globex).provisional_events is False


def _jobs_query_plan(actors: Any) -> str:
    """The database's plan for the portal's job list (the query the polling rows repeat), sequential scans off so
    that the plan shows the index the database would use once the table is large."""
    from django.db import connection, transaction
    from django.test import RequestFactory

    from frontend.views import _jobs_filtered

    request = RequestFactory().get("/jobs/")
    request.user, request.session = actors.rita, {}  # type: ignore[assignment]  # a reviewer: the list unmasked
    request.organisation = actors.acme  # type: ignore[attr-defined]
    _form, jobs = _jobs_filtered(request)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL enable_seqscan = off")
        return str(jobs[:50].explain())


def test_the_portal_job_list_is_read_in_order_from_an_organisation_index(actors: Any) -> None:
    """Newest first for one organisation, straight from (organisation, created_at): no sort of all its jobs."""
    plan = _jobs_query_plan(actors)
    assert "job_org_recent" in plan, plan
    assert "Sort" not in plan and "TEMP B-TREE" not in plan, plan


def test_searching_the_job_list_spends_the_read_budget(client: Any, actors: Any, settings: Any) -> None:
    """Alice's portal reads share DOCGATE_THROTTLE_READ with her API reads: past it, the list (searched or
    polled) is refused with 429 and Retry-After until the window ends."""
    settings.CACHES = LOCAL_CACHE
    settings.DOCGATE_THROTTLE_READ = (2, 60)
    client.force_login(actors.alice)
    assert client.get("/jobs/", {"q": "油烟"}).status_code == 200
    assert client.get("/jobs/", {"q": "油烟", "partial": "rows"}).status_code == 200
    refused = client.get("/jobs/", {"q": "违约金"})
    assert refused.status_code == 429
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert "Too many requests" in refused.content.decode() or "请求过于频繁" in refused.content.decode()


def _sign_in(client: Any, path: str, username: str, password: str) -> Any:
    return client.post(path, {"username": username, "password": password, "next": "/jobs/"})


def test_sign_in_attempts_are_counted_per_account_and_refused_past_the_budget(
    client: Any, actors: Any, settings: Any
) -> None:
    """Someone guesses Alice's password: past DOCGATE_THROTTLE_LOGIN attempts the portal refuses with 429 and
    Retry-After before any password is checked, the right one included; Rita, another account, signs in."""
    settings.CACHES = LOCAL_CACHE
    settings.DOCGATE_THROTTLE_LOGIN = (3, 3600)
    for name in ("alice", "ALICE", " alice"):  # spelt any way, it is one account's budget
        wrong = _sign_in(client, "/accounts/login/", name, "not-her-password")
        assert wrong.status_code == 200 and "_auth_user_id" not in client.session
    refused = _sign_in(client, "/accounts/login/", "alice", "alice-password-1")
    assert refused.status_code == 429, refused.status_code
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert "_auth_user_id" not in client.session
    page = refused.content.decode()
    assert "Too many sign-in attempts" in page or "登录尝试过于频繁" in page, page
    assert _sign_in(client, "/accounts/login/", "rita", "rita-password-1").status_code == 302


def test_the_admin_sign_in_spends_the_same_budget(client: Any, actors: Any, settings: Any) -> None:
    """/admin/login/ guards the operators' accounts, the most valuable to guess: it counts against the same
    per-account budget and refuses past it."""
    from django.contrib.auth import get_user_model

    settings.CACHES = LOCAL_CACHE
    settings.DOCGATE_THROTTLE_LOGIN = (2, 3600)
    get_user_model().objects.create_superuser("root", password="root-password-1")
    for _ in range(2):
        assert _sign_in(client, "/admin/login/", "root", "guess").status_code == 200
    refused = _sign_in(client, "/admin/login/", "root", "root-password-1")
    assert "_auth_user_id" not in client.session
    page = refused.content.decode()
    assert "Too many sign-in attempts" in page or "登录尝试过于频繁" in page, page
