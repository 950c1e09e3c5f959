"""Playbooks are organisation data: Acme's own playbook grades its contracts, each save is a new version kept in
the audit log; Globex, which has none, is graded by DocGate's default; the grades and the statutes reach the
result, the API schema and the result page."""

from __future__ import annotations

import itertools
import json
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from contracts.api.result_schema import FindingsField
from contracts.intake.submission import Submission, document_submit
from contracts.legal.playbooks import (
    AUDIT_CHANGED,
    ContractPlaybook,
    contract_playbook,
    playbook_history,
    playbook_save,
    playbook_seed,
)
from contracts.models import AuditEvent, Job, JobState, Result
from contracts.pipeline import job_run
from rules.playbook import default_rules_data, load_default_playbook

pytestmark = pytest.mark.django_db

SALE = (
    "设备买卖合同\n出卖人（甲方）：某某机械有限公司\n买受人（乙方）：某某制造有限公司\n"
    "第一条 合同总价为人民币100万元。\n"
    "第二条 乙方应于签约后五日内向甲方支付定金人民币30万元。\n"
    "第三条 乙方应在收到发票后三十日内支付全部货款。\n"
    "第四条 因本合同引起的争议，由北京市朝阳区人民法院管辖。\n"
)
SUBMITTED = itertools.count(1)


def contract_result(organisation: Any, text: str = SALE) -> tuple[Job, dict[str, Any]]:
    """Submit and run a contract (numbered, so the same words are a new document each time)."""
    job = document_submit(
        organisation=organisation,
        submission=Submission(kind="contract", source="api", text=f"{text}第{next(SUBMITTED)}份"),
    ).job
    assert job_run(job.pk, "w").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    return job, Result.objects.get(job=job).data


def points(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["label"]: f for f in data["findings"] if f["kind"] == "playbook"}


def test_an_organisation_without_a_playbook_is_graded_by_the_default(actors: Any) -> None:
    _, data = contract_result(actors.globex)
    graded = points(data)
    default = load_default_playbook()
    assert {f["playbook"] for f in graded.values()} == {f"{default.pack}@{default.version}"}
    deposit = graded["deposit.cap"]
    assert deposit["grade"] == "escalate" and deposit["basis"] == "民法典第586条"
    assert deposit["article"]["law"] == "民法典" and deposit["article"]["gist"]
    assert any("定金" in SALE[s:e] for s, e in deposit["spans"])
    assert graded["limit.payment_days"]["grade"] == "acceptable"
    assert "forum.city" not in graded  # the default names no city
    risk = next(f for f in data["findings"] if f["kind"] == "risk" and f["label"] == "deposit_over_20_percent")
    assert (risk["article"]["number"], risk["contract_type"]) == ("第586条", "sale")
    assert "需上报：定金不超过法定上限" in data["suggested_response"]


def test_a_saved_playbook_grades_the_next_contract_and_every_version_is_kept(actors: Any) -> None:
    row = playbook_save(row=ContractPlaybook(organisation=actors.acme, city="上海市", rules=default_rules_data()))
    _, first = contract_result(actors.acme)
    forum = points(first)["forum.city"]
    assert (forum["grade"], forum["playbook"]) == ("negotiate", "playbook.organisation:acme@v1")
    row.city = "北京市"
    row.rules = [r for r in row.rules if r["id"] != "deposit.cap"]
    playbook_save(row=row, user=actors.oscar)
    _, second = contract_result(actors.acme)
    assert points(second)["forum.city"]["grade"] == "acceptable"
    assert "deposit.cap" not in points(second)
    assert points(second)["forum.city"]["playbook"] == "playbook.organisation:acme@v2"
    # Globex is untouched by Acme's playbook.
    assert contract_playbook("globex").pack == "playbook.default"
    history = playbook_history(row)
    assert [(h["version"], h["changed"]) for h in history] == [
        (1, ["city", *sorted(r["id"] for r in default_rules_data())]),
        (2, ["city", "deposit.cap"]),
    ]
    assert history[1]["by"] == "oscar"
    assert AuditEvent.objects.filter(organisation=actors.acme, action=AUDIT_CHANGED).count() == 2


def test_the_minimum_wage_setting_reaches_the_labour_check(actors: Any) -> None:
    labour = "劳动合同书\n用人单位（甲方）：某某科技有限公司\n劳动者（乙方）：王某\n试用期工资为人民币2000元/月。\n"
    _, before = contract_result(actors.acme, labour)
    assert not [f for f in before["findings"] if f.get("label") == "probation_wage_too_low"]
    playbook_save(row=ContractPlaybook(organisation=actors.acme, minimum_wage=Decimal(2690)))
    _, after = contract_result(actors.acme, labour)
    flag = next(f for f in after["findings"] if f.get("label") == "probation_wage_too_low")
    assert flag["basis"] == "劳动合同法第20条" and "2690" in flag["message"]


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ([{"id": "x", "kind": "limit", "measure": "payment_days"}], "maximum"),
        ([{"id": "x", "kind": "guess"}], "unknown kind"),
        ({"id": "x"}, "list"),
    ],
    ids=["limit-without-maximum", "unknown-kind", "not-a-list"],
)
def test_a_playbook_the_review_cannot_read_is_refused(actors: Any, rules: Any, words: str) -> None:
    with pytest.raises(ValidationError) as refused:
        playbook_save(row=ContractPlaybook(organisation=actors.acme, rules=rules))
    assert words in " ".join(refused.value.message_dict["rules"])
    assert not ContractPlaybook.objects.exists()


def test_seeding_copies_the_default_once(actors: Any) -> None:
    assert playbook_seed(organisation=actors.acme) is True
    assert playbook_seed(organisation=actors.acme) is False
    row = ContractPlaybook.objects.get(organisation=actors.acme)
    assert (row.version, row.rules) == (1, default_rules_data())


def test_the_django_admin_edits_the_playbook_as_a_new_version_and_shows_its_history(client: Any, actors: Any) -> None:
    from django.contrib.auth import get_user_model

    row = playbook_save(row=ContractPlaybook(organisation=actors.acme, city="杭州市", rules=default_rules_data()))
    client.force_login(get_user_model().objects.create_superuser("root", password="root-password-1"))
    url = f"/admin/contracts/contractplaybook/{row.pk}/change/"
    form = {"organisation": actors.acme.pk, "city": "宁波市", "minimum_wage": "", "rules": json.dumps(row.rules)}
    assert client.post(url, form).status_code == 302
    row.refresh_from_db()
    assert (row.city, row.version) == ("宁波市", 2)
    assert row.updated_by is not None and row.updated_by.get_username() == "root"
    assert "v2" in client.get(url).content.decode()
    broken = {**form, "rules": json.dumps([{"id": "x", "kind": "guess"}])}
    assert "unknown kind" in client.post(url, broken).content.decode()
    row.refresh_from_db()
    assert row.version == 2


def test_the_api_schema_describes_playbook_findings() -> None:
    schema = FindingsField._spectacular_annotation["field"]  # type: ignore[attr-defined]
    refs = {option["$ref"].rsplit("/", 1)[-1] for option in schema["items"]["oneOf"]}
    assert "PlaybookFinding" in refs
    assert schema["items"]["discriminator"]["mapping"]["playbook"].endswith("/PlaybookFinding")


def test_the_result_page_shows_each_grade_and_its_article(client: Any, actors: Any) -> None:
    job, _ = contract_result(actors.acme)
    client.force_login(actors.alice)
    page = client.get(f"/documents/{job.document_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert 'data-testid="playbook-grade"' in page
    assert "需上报" in page and "定金不超过法定上限" in page
    assert "民法典第586条" in page


def test_the_report_comments_a_playbook_point_at_its_evidence_with_its_title_grade_and_article(actors: Any) -> None:
    from contracts.legal.report.comments import report_comments

    job, data = contract_result(actors.acme)
    text = job.document.text
    comments = [c for c in report_comments(data["findings"], text) if c.kind == "playbook"]
    deposit = next(c for c in comments if c.label == "deposit.cap")
    assert "定金不超过法定上限" in deposit.text and "民法典第586条" in deposit.text
    assert "定金" in text[deposit.start : deposit.end]
