"""The legal desk's key terms: term findings with value, span and confidence in the result, masked for submitters,
and described in the API's result schema."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from contracts.api.result_schema import _findings_schema
from contracts.findings import FINDING
from contracts.intake.submission import Submission, document_submit
from contracts.legal.desk import LegalDesk
from contracts.models import Job, JobState, Result
from contracts.pipeline import job_run
from contracts.tenancy.personal_data import MASK, finding_masked
from rules.normalize import normalize

# Traditional script and full-width digits, as pasted from a Hong Kong PDF: spans must still land on the original.
CONTRACT_HK = (
    "出租人（以下簡稱甲方）：香港某某置業有限公司\n承租人（以下簡稱乙方）：陳大文\n身份證號碼：11010519491231002X\n"
    "第一條　合同期限\n本合同有效期為２年，自簽訂之日起計算。\n"
    "第二條　租金\n月租金為人民幣８，０００元（含稅）。\n"
    "第三條　違約責任\n乙方逾期付款的，按未付金額每日萬分之五支付違約金。\n"
    "第四條　爭議解決\n因本合同引起的爭議，提交北京仲裁委員會仲裁。\n"
)


def _terms(findings: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    return {f["label"]: f for f in findings if f["kind"] == "term"}


def test_the_desk_reads_key_terms_as_values_with_spans_on_the_original() -> None:
    output = LegalDesk().rule_findings(normalize(CONTRACT_HK), organisation="")
    terms = _terms(output.findings)
    assert terms["term"]["normalised"] == "2 year"
    start, end = terms["term"]["span"]
    assert CONTRACT_HK[start:end] == "２年"
    assert terms["price"]["value"] == {"type": "money", "amount": "8000", "currency": "CNY", "tax_included": True}
    assert terms["penalty"]["value"]["fraction"] == "0.0005" and terms["penalty"]["value"]["period"] == "day"
    assert terms["forum"]["value"] == {"type": "forum", "kind": "arbitration", "name": "北京仲裁委员会"}
    assert all(0 < f["confidence"] <= 1 and f["status"] == "agreed" for f in terms.values())
    assert output.packs["contract_terms"]
    for finding in terms.values():
        FINDING.validate_python(finding)  # each is a finding of its kind as stored


def test_a_blank_template_value_is_a_blank_term_not_an_agreed_one() -> None:
    output = LegalDesk().rule_findings(
        normalize("第三条　租金\n月租金为　　　元，按照＿＿＿的标准支付。\n"), organisation=""
    )
    price = _terms(output.findings)["price"]
    assert price["status"] == "blank" and price["value"] is None and price["normalised"] == "blank"


def test_a_submitter_sees_a_party_s_id_and_a_person_s_name_masked() -> None:
    output = LegalDesk().rule_findings(normalize(CONTRACT_HK), organisation="")
    parties = [f for f in output.findings if f["kind"] == "term" and f["label"] == "party"]
    tenant = next(p for p in parties if "乙方" in p["value"]["roles"])
    assert tenant["value"]["identifier"] == "11010519491231002X" and tenant["value"]["is_person"]
    shown = finding_masked(tenant)
    assert shown["value"]["identifier"] == MASK * 18
    assert set(shown["value"]["name"]) == {MASK}
    assert "陈大文" not in shown["normalised"] and "陈大文" not in shown["evidence"]
    company = next(p for p in parties if "甲方" in p["value"]["roles"])
    assert finding_masked(company)["value"]["name"] == "香港某某置业有限公司"  # an organisation is no person


def test_the_result_schema_describes_term_findings() -> None:
    assert "TermFinding" in str(_findings_schema())


@pytest.mark.django_db
def test_a_contract_result_carries_its_key_terms(actors: Any) -> None:
    job = document_submit(
        organisation=actors.acme, submission=Submission(kind="contract", source="api", text=CONTRACT_HK)
    ).job
    assert job_run(job.pk, "w").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    result = Result.objects.get(job=Job.objects.get(pk=job.pk))
    terms = _terms(result.data["findings"])
    assert {"party", "term", "price", "penalty", "forum"} <= set(terms)
    assert result.provenance["rule_packs"]["contract_terms"]
