"""Two-character queries, most Chinese words: no trigram index serves them. A rare one must still be found however
old its ticket is, exactly (no wildcard, case folded as for longer queries), and on PostgreSQL through the bigram
index rather than by reading every ticket (SQLite's FTS5 has no bigram tokenizer: LIKE over the text there).

Rita reviews for Acme and sees text in full.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from contracts.models import Document
from contracts.search import documents_holding
from tests.api.test_search import found, submitted

pytestmark = pytest.mark.django_db


def test_a_rare_two_character_word_in_an_old_ticket_is_found(actors: Any, acme_api: APIClient) -> None:
    old = submitted(actors.acme, "地下室积水，蚊子特别多，晚上没法睡觉。", run=False)
    Document.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=800))
    for n in range(3):
        submitted(actors.acme, f"楼下餐馆油烟扰民第{n}次。", run=False)
    (result,) = found(acme_api, "蚊子")
    assert result["id"] == str(old.pk) and result["hits"] == 1
    assert found(acme_api, "蚊虫") == [] and found(acme_api, "子特") != []


def test_two_characters_match_exactly_and_fold_case_as_longer_queries_do(actors: Any, acme_api: APIClient) -> None:
    percent = submitted(actors.acme, "物业费一次涨价5%，没有公示。", run=False)
    submitted(actors.acme, "物业费涨到50元，没有公示。", run=False)
    wifi = submitted(actors.acme, "图书馆的WiFi经常断线。", run=False)
    # Older than the newest days' LIKE: SQLite finds them in its one pass over the FTS5 table's text.
    Document.objects.update(created_at=timezone.now() - timedelta(days=400))
    assert [r["id"] for r in found(acme_api, "5%")] == [str(percent.pk)]  # % is a character, not a wildcard
    assert [r["id"] for r in found(acme_api, "wi")] == [str(wifi.pk)]
    assert [r["id"] for r in found(acme_api, "FI")] == [str(wifi.pk)]
    assert found(acme_api, "%元") == []  # not "any characters, then 元" (物业费涨到50元)


def test_the_bigram_index_follows_text_written_later(actors: Any, acme_api: APIClient) -> None:
    document = submitted(actors.acme, "小区停车难。", run=False)
    Document.objects.filter(pk=document.pk).update(text="夜间施工噪音扰民。")  # as extraction writes it
    assert [r["id"] for r in found(acme_api, "噪音")] == [str(document.pk)]
    assert found(acme_api, "停车") == []


def test_postgresql_answers_a_two_character_query_from_the_bigram_index(actors: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the bigram index is PostgreSQL's")
    submitted(actors.acme, "地下室积水，蚊子特别多。", run=False)
    holding = documents_holding(Document.objects.all(), "蚊子").values_list("pk")
    sql, params = holding.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a table this small is read whole otherwise
        cursor.execute("EXPLAIN " + sql, params)
        plan = " ".join(row[0] for row in cursor.fetchall())
    assert "contracts_document_text_bigram" in plan, plan
