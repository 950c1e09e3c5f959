"""The portal's search page: Chinese words inside sentences, highlighted snippets, masked for Alice (a submitter),
in full for Rita (a reviewer); Oscar (Globex) never sees Acme's documents."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from contracts.intake.submission import Submission, document_submit
from contracts.pipeline import job_run

pytestmark = pytest.mark.django_db

PHONE = "13812345678"
TICKET = f"我是A市居民，电话{PHONE}，楼下餐馆油烟扰民，多次反映至今未解决。"


@pytest.fixture
def acme_ticket(actors: Any) -> Any:
    outcome = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=TICKET))
    job_run(outcome.job.pk, "search-page-test")
    return outcome.document


def page(user: Any, **query: str) -> Any:
    client = Client()
    client.force_login(user)
    return client.get("/search/", query)


def test_the_page_finds_a_word_inside_a_sentence_and_marks_it(actors: Any, acme_ticket: Any) -> None:
    response = page(actors.rita, q="油烟")
    body = response.content.decode()
    assert response.status_code == 200
    assert f'data-document="{acme_ticket.pk}"' in body
    assert "<mark>油烟</mark>" in body
    assert "全文搜索" in body and "命中 1 处" in body  # zh-Hans by default


def test_a_submitter_sees_masked_snippets_and_cannot_search_by_the_masked_phone(actors: Any, acme_ticket: Any) -> None:
    body = page(actors.alice, q="油烟").content.decode()
    assert f'data-document="{acme_ticket.pk}"' in body and PHONE not in body
    body = page(actors.alice, q=PHONE[-4:]).content.decode()
    assert 'data-testid="search-result"' not in body and "没有找到" in body


def test_another_organisation_finds_nothing(actors: Any, acme_ticket: Any) -> None:
    body = page(actors.oscar, q="油烟").content.decode()
    assert 'data-testid="search-result"' not in body


@pytest.mark.parametrize("q", ["   ", "油" * 101, "油\x00烟"], ids=["blank", "too-long", "nul"])
def test_a_bad_query_is_a_400_that_says_why(actors: Any, q: str) -> None:
    response = page(actors.rita, q=q)
    assert response.status_code == 400
    error = re.search(r'data-testid="search-error">(.*?)</span>', response.content.decode(), re.S)
    assert error is not None and html.unescape(error.group(1)).strip()


def test_the_page_without_a_query_shows_the_box(actors: Any) -> None:
    response = page(actors.rita)
    assert response.status_code == 200 and 'data-testid="search-form"' in response.content.decode()
