"""Normalization and rules as pipeline stages: findings carry spans that point into what the user sent."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobState, Result
from contracts.pipeline import job_run

pytestmark = pytest.mark.django_db

# Traditional script, full-width digits and a hard-wrapped line, as pasted from a Hong Kong PDF.
CONTRACT_HK = (
    "第一條　合同期限\n本合同有效期為２年，自簽訂之日起計算。\n"
    "第二條　違約責任\n任何一方違約，應向守約方支付合同總價款百分之十的違約\n金。\n"
    "第三條　爭議解決\n因本合同引起的爭議，提交北京仲裁委員會仲裁。\n"
)
TICKET = "我是A市A3区居民，电话13812345678，小区楼下餐馆油烟太大，晚上噪音扰民，多次反映至今未解决。"


def run(actors: Any, kind: str, text: str) -> tuple[Job, Result]:
    job = document_submit(organisation=actors.acme, submission=Submission(kind=kind, source="api", text=text)).job
    assert job_run(job.pk, "w").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    job.refresh_from_db()
    return job, Result.objects.get(job=job)


def test_contract_clauses_are_found_on_normalized_text_and_shown_on_the_original(actors: Any) -> None:
    job, result = run(actors, "contract", CONTRACT_HK)
    report = job.artifacts["normalize"]["report"]
    assert report["script_config"] in {"hk2s", "t2s", "tw2s"}
    assert "违约" in job.artifacts["normalize"]["text"]
    clauses = {f["label"]: f for f in result.data["findings"] if f["kind"] == "clause" and f["status"] == "stipulated"}
    assert {"合同期限", "违约金/违约责任", "争议解决"} <= set(clauses)
    penalty = clauses["违约金/违约责任"]
    start, end = penalty["match_span"]
    assert CONTRACT_HK[start:end] in {"違約", "違約責任", "違約金", "違約\n金"} or "違約" in CONTRACT_HK[start:end]
    assert result.provenance["rule_packs"]["clauses"]
    assert result.data["normalization"]["script_config"] == report["script_config"]


def test_ticket_gets_category_routing_urgency_and_pii_entities(actors: Any) -> None:
    _, result = run(actors, "ticket", TICKET)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for finding in result.data["findings"]:
        by_kind.setdefault(finding["kind"], []).append(finding)
    category = by_kind["ticket_category"][0]
    assert category["label"] == "环境保护"
    assert category["department"]
    assert by_kind["urgency"][0]["label"] in {"high", "urgent"}
    phones = [e for e in by_kind["entity"] if e["label"] == "PHONE"]
    assert phones and phones[0]["is_pii"]
    s, e = phones[0]["span"]
    assert TICKET[s:e] == "13812345678"
    assert set(result.provenance["rule_packs"]) >= {"tickets", "entities"}


def test_logs_never_carry_phone_or_id_numbers(caplog: pytest.LogCaptureFixture) -> None:
    from contracts.logfilters import PiiMaskingFilter

    logger = logging.getLogger("docgate.test")
    logger.addFilter(PiiMaskingFilter())
    try:
        with caplog.at_level(logging.INFO, logger="docgate.test"):
            logger.info("caller %s asked about %s", "13812345678", "社保卡")
    finally:
        logger.filters.clear()
    assert "13812345678" not in caplog.text
    assert "社保卡" in caplog.text


def test_trained_classifier_is_published_per_organisation_and_used_by_its_jobs(
    actors: Any, settings: Any, tmp_path: Any
) -> None:
    import json
    from io import StringIO

    from django.core.management import call_command

    from tests.shared_data import shared_file

    settings.DOCGATE_MODELS_DIR = str(tmp_path / "models")
    rows = [json.loads(line) for line in shared_file("tickets/public.jsonl").read_text("utf-8").splitlines()[:700]]
    training = tmp_path / "history.jsonl"
    training.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    out = StringIO()
    call_command("train_ticket_classifier", data=str(training), organisation="acme", stdout=out, stderr=StringIO())
    published = json.loads(out.getvalue())
    assert published["n_samples"] == 700
    assert set(published["thresholds"]) == set(published["labels"]) and published["calibration"]["folds"] == 5
    assert (tmp_path / "models" / "acme" / "tickets" / "current").read_text() == published["model_version"]

    _, result = run(actors, "ticket", TICKET)
    category = next(f for f in result.data["findings"] if f["kind"] == "ticket_category")
    assert category["model_version"] == published["model_version"]
    assert category["decided_by"] in {"both", "classifier", "rules"}
    assert category["classifier_label"] is not None
    # Globex trained nothing: its jobs use the rules alone.
    job = document_submit(
        organisation=actors.globex, submission=Submission(kind="ticket", source="api", text=TICKET)
    ).job
    job_run(job.pk, "w")
    other = Result.objects.get(job=job)
    other_category = next(f for f in other.data["findings"] if f["kind"] == "ticket_category")
    assert other_category["model_version"] is None and other_category["decided_by"] == "rules"


def test_training_refuses_unusable_data(actors: Any, tmp_path: Any) -> None:
    from django.core.management import CommandError, call_command

    one_label = tmp_path / "one.jsonl"
    one_label.write_text('{"id": 1, "text": "噪音", "label": "环境保护"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="two different labels"):
        call_command("train_ticket_classifier", data=str(one_label), organisation="acme")
    with pytest.raises(CommandError, match="No organisation"):
        call_command("train_ticket_classifier", data=str(one_label), organisation="nobody")
