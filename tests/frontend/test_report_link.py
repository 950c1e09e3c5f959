"""The result page of a contract links its report (.docx with comments, summary PDF); the link answers as the API
does: Rita gets the file, Oscar of Globex a 404, and a report the gates withhold sends her back with the reason."""

from __future__ import annotations

import io
from typing import Any

import docx
import pytest

from contracts.models import Result
from tests.api.test_report_api import submitted
from tests.word_comments import comment_anchors

pytestmark = pytest.mark.django_db


def signed_in(client: Any, user: Any) -> Any:
    client.force_login(user)
    return client


def test_the_result_page_of_a_contract_links_its_report_and_the_link_downloads_it(client: Any, actors: Any) -> None:
    document = submitted(actors)
    page = signed_in(client, actors.rita).get(f"/documents/{document.pk}/").content.decode()
    docx_link, pdf_link = f"/documents/{document.pk}/report.docx", f"/documents/{document.pk}/report.pdf"
    assert f'href="{docx_link}" data-testid="report-docx"' in page and f'href="{pdf_link}"' in page
    answer = client.get(docx_link)
    assert answer.status_code == 200 and "attachment" in answer["Content-Disposition"]
    assert comment_anchors(docx.Document(io.BytesIO(answer.content)))  # its findings, commented


def test_a_ticket_page_has_no_report_link(client: Any, actors: Any) -> None:
    document = submitted(actors, kind="ticket")
    page = signed_in(client, actors.rita).get(f"/documents/{document.pk}/").content.decode()
    assert 'data-testid="report-docx"' not in page


def test_an_outsider_gets_404_for_the_report_link(client: Any, actors: Any) -> None:
    document = submitted(actors)
    assert signed_in(client, actors.oscar).get(f"/documents/{document.pk}/report.docx").status_code == 404


def test_a_withheld_report_goes_back_to_the_result_page_with_the_reason(client: Any, actors: Any) -> None:
    document = submitted(actors)
    result = document.latest_result()
    assert result is not None
    Result.objects.filter(pk=result.pk).update(
        data={**result.data, "gate": {**result.data["gate"], "decision": "block"}}
    )
    answer = signed_in(client, actors.rita).get(f"/documents/{document.pk}/report.docx", follow=True)
    assert answer.redirect_chain[-1][0] == f"/documents/{document.pk}/"
    assert "安全闸门拦截了这份报告" in answer.content.decode()  # the portal speaks Chinese by default
