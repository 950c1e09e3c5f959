"""Chinese full-text search, API: words inside sentences, ranked, snippets that point into the text, the masking
policy and the organisation's walls.

Alice submits for Acme and sees personal data masked; Rita reviews for Acme and sees it in full; Oscar is Globex's
admin and must never find Acme's documents.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from contracts.intake.submission import Submission, document_submit
from contracts.models import Document
from contracts.pipeline import job_run

pytestmark = pytest.mark.django_db

URL = "/api/v1/search/"
PHONE = "13812345678"
NOISE = f"我是A市居民，电话{PHONE}，楼下餐馆油烟扰民，多次反映至今未解决，希望尽快处理油烟问题。"


def submitted(organisation: Any, text: str, *, kind: str = "ticket", title: str = "", run: bool = True) -> Document:
    submission = Submission(kind=kind, source="api", text=text, title=title)
    outcome = document_submit(organisation=organisation, submission=submission)
    if run:
        job_run(outcome.job.pk, "search-test")
    return outcome.document


def session(user: Any) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def found(client: APIClient, q: str, **params: str) -> list[dict[str, Any]]:
    response = client.get(URL, {"q": q, **params})
    assert response.status_code == 200, response.content
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_a_chinese_word_inside_a_sentence_is_found(actors: Any) -> None:
    document = submitted(actors.acme, NOISE)
    submitted(actors.acme, "小区电梯故障，多日无人维修。")
    for word in ("油烟", "餐馆油烟扰民", "扰"):
        assert [r["id"] for r in found(session(actors.rita), word)] == [str(document.pk)], word


def test_highlights_map_to_the_original_text(actors: Any, acme_api: APIClient) -> None:
    document = submitted(actors.acme, NOISE)
    (result,) = found(acme_api, "油烟")
    assert result["hits"] == 2 and result["kind"] == "ticket"
    spans = [tuple(h) for s in result["snippets"] for h in s["highlights"]]
    assert spans and all(document.text[start:end] == "油烟" for start, end in spans)
    assert len(spans) == 2
    for snippet in result["snippets"]:
        offset = snippet["offset"]
        assert document.text[offset : offset + len(snippet["text"])] == snippet["text"]


def test_results_are_ranked_by_hits_then_recency(actors: Any, acme_api: APIClient) -> None:
    once = submitted(actors.acme, "楼下油烟很大。", run=False)
    thrice = submitted(actors.acme, "油烟，油烟，还是油烟。", run=False)
    newer_once = submitted(actors.acme, "餐馆油烟扰民。", run=False)
    assert [r["id"] for r in found(acme_api, "油烟")] == [str(d.pk) for d in (thrice, newer_once, once)]


def test_kind_filter_and_pages(actors: Any, acme_api: APIClient) -> None:
    ticket = submitted(actors.acme, "物业费收取不合理。", run=False)
    contract = submitted(actors.acme, "甲方应按月支付物业费。", kind="contract", title="物业服务合同", run=False)
    assert [r["id"] for r in found(acme_api, "物业费", kind="contract")] == [str(contract.pk)]
    assert found(acme_api, "物业费", kind="contract")[0]["title"] == "物业服务合同"
    assert [r["id"] for r in found(acme_api, "物业费", kind="ticket")] == [str(ticket.pk)]
    assert acme_api.get(URL, {"q": "物业费", "page": "2"}).json()["results"] == []


def test_submitter_cannot_find_a_document_by_the_phone_number_masked_for_her(actors: Any) -> None:
    document = submitted(actors.acme, NOISE)
    alice = session(actors.alice)
    for q in (PHONE, PHONE[:7], PHONE[-4:]):
        assert found(alice, q) == [], q
    (result,) = found(alice, "油烟")  # she finds it by what she may read, and her snippets are masked
    assert result["id"] == str(document.pk)
    assert all(PHONE[-4:] not in s["text"] for s in result["snippets"])
    assert [r["id"] for r in found(session(actors.rita), PHONE)] == [str(document.pk)]


def test_another_organisations_documents_are_never_found(actors: Any, globex_api: APIClient) -> None:
    submitted(actors.acme, NOISE)
    theirs = submitted(actors.globex, "餐馆油烟扰民，请处理。", run=False)
    assert [r["id"] for r in found(globex_api, "油烟")] == [str(theirs.pk)]
    assert [r["id"] for r in found(session(actors.oscar), PHONE)] == []


@pytest.mark.parametrize("q", ["", "   ", "油" * 101, "油烟\x00"], ids=["empty", "blank", "too-long", "nul"])
def test_bad_queries_are_a_clear_400(acme_api: APIClient, q: str) -> None:
    response = acme_api.get(URL, {"q": q})
    assert response.status_code == 400, response.content
    assert "q" in response.content.decode()


def test_a_missing_query_is_a_400(acme_api: APIClient) -> None:
    assert acme_api.get(URL).status_code == 400


def test_search_spends_the_read_budget(acme_api: APIClient, settings: Any) -> None:
    settings.DOCGATE_THROTTLE_READ = (1, 60)
    assert acme_api.get(URL, {"q": "油烟"}).status_code == 200
    assert acme_api.get(URL, {"q": "油烟"}).status_code == 429


def test_the_index_follows_text_written_later(actors: Any, acme_api: APIClient) -> None:
    document = submitted(actors.acme, "小区停车难。", run=False)
    Document.objects.filter(pk=document.pk).update(text="夜间施工噪音扰民。")  # as extraction writes it
    assert [r["id"] for r in found(acme_api, "施工噪音")] == [str(document.pk)]
    assert found(acme_api, "停车难") == []


def test_only_the_newest_matches_are_ranked_and_the_page_says_so(
    actors: Any, acme_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("contracts.search.RANK_WINDOW", 2)
    oldest = submitted(actors.acme, "油烟，油烟，油烟，油烟。", run=False)  # the most hits, but older than the window
    newer = [submitted(actors.acme, f"楼下油烟第{n}次。", run=False) for n in range(2)]
    body = acme_api.get(URL, {"q": "油烟"}).json()
    assert {r["id"] for r in body["results"]} == {str(d.pk) for d in newer} and str(oldest.pk) not in str(body)
    assert body["truncated"] is True
    assert acme_api.get(URL, {"q": "第0次"}).json()["truncated"] is False
