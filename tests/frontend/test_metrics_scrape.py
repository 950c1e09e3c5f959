"""What a /metrics scrape costs and counts: a fixed set of aggregate queries that read no result's JSON, and gate
decisions counted once per pipeline run, from its final result (migration 0005 fills them in for old rows)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobPhase, JobState, Result
from contracts.pipeline import job_run

TICKET = "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。"
BEFORE, AFTER = [("contracts", "0005_webhook_standard_secrets")], [("contracts", "0006_metrics_from_indexes")]


def scrape_queries(scrape: Any) -> tuple[str, list[str]]:
    """Scrape /metrics; return the body and the SQL it ran (a request resets Django's own query log)."""
    queries: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        response = scrape()
    assert response.status_code == 200
    return response.content.decode(), queries


def gate_count(body: str, decision: str) -> float:
    match = re.search(rf'^docgate_gate_decisions{{decision="{decision}"}} (\S+)$', body, re.M)
    return float(match.group(1)) if match else 0.0


def results_add(job: Job, count: int, decision: str) -> None:
    """`count` more pipeline results of the job's document, as the pipeline writes them (bulk, for speed)."""
    latest = Result.objects.filter(document_id=job.document_id).count()
    Result.objects.bulk_create(
        Result(
            organisation_id=job.organisation_id,
            document_id=job.document_id,
            job=job,
            version=latest + n,
            data={"gate": {"decision": decision}, "findings": [{"id": "F1"}] * 50},
            gate_decision=decision,
        )
        for n in range(1, count + 1)
    )


@pytest.mark.django_db
def test_a_scrape_reads_no_result_json_and_its_queries_do_not_grow_with_results(scrape: Any, actors: Any) -> None:
    job = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=TICKET)).job
    results_add(job, 1, "allow")
    body, few = scrape_queries(scrape)
    assert gate_count(body, "allow") == 1
    results_add(job, 40, "block")
    body, many = scrape_queries(scrape)
    assert gate_count(body, "allow") == 1 and gate_count(body, "block") == 40
    assert len(many) == len(few) <= 7, many  # the seventh: the model's standing per organisation and question
    reads_data = [sql for sql in many if '"contracts_result"."data"' in sql or '"contracts_job"."artifacts"' in sql]
    assert reads_data == [], "a scrape reads JSON columns"


@pytest.mark.django_db
def test_gate_decisions_count_a_job_once_from_its_final_result_not_its_provisional_one(
    scrape: Any, actors: Any, llm_down: None, settings: Any
) -> None:
    job = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=TICKET)).job
    assert job_run(job.pk, "rules-worker").status == JobState.PROVISIONAL
    assert Result.objects.get(job=job).gate_decision == "", "a provisional result is not a decision yet"
    body, _ = scrape_queries(scrape)
    assert sum(gate_count(body, d) for d in ("allow", "review", "block")) == 0
    settings.DOCGATE_LLM_WAIT_MAX_S = 0.0  # the model stays down: the job ends on the rules' answer
    assert job_run(job.pk, "llm-worker", phase=JobPhase.LLM).status == JobState.NEEDS_REVIEW
    final = Result.objects.get(job=job, version=2)
    assert final.gate_decision == final.data["gate"]["decision"]
    body, _ = scrape_queries(scrape)
    assert gate_count(body, final.gate_decision) == 1
    assert sum(gate_count(body, d) for d in ("allow", "review", "block")) == 1


@pytest.fixture
def migrated_back() -> Iterator[MigrationExecutor]:
    """The schema before migration 0005; migrated forward to today's schema afterwards, whatever the test did (the
    tests after it run on the database it leaves)."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    yield MigrationExecutor(connection)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("contracts"))


@pytest.mark.django_db(transaction=True)
def test_migration_fills_in_the_gate_decision_of_existing_pipeline_results(
    migrated_back: MigrationExecutor,
) -> None:
    old = migrated_back.loader.project_state(BEFORE).apps
    organisation = old.get_model("contracts", "Organisation").objects.create(name="Acme", slug="acme")
    document = old.get_model("contracts", "Document").objects.create(
        organisation=organisation, kind="ticket", source="api", content_type="text/plain", size_bytes=3, sha256="x"
    )
    job = old.get_model("contracts", "Job").objects.create(organisation=organisation, document=document)
    results = old.get_model("contracts", "Result").objects
    # (final, data, provenance) of a provisional, a final, a reviewed result and one whose data has no gate.
    rows: list[tuple[bool, dict[str, Any], dict[str, Any]]] = [
        (False, {"gate": {"decision": "allow"}}, {}),
        (True, {"gate": {"decision": "review"}}, {"stages": ["gate"]}),
        (True, {"gate": {"decision": "review"}}, {"review_task": "t-1"}),
        (True, {}, {}),
    ]
    for version, (final, data, provenance) in enumerate(rows, start=1):
        results.create(
            organisation=organisation,
            document=document,
            job=job,
            version=version,
            final=final,
            data=data,
            provenance=provenance,
        )
    migrated_back.loader.build_graph()
    migrated_back.migrate(AFTER)
    decided = dict(Result.objects.values_list("version", "gate_decision"))
    assert decided == {1: "", 2: "review", 3: "", 4: "unknown"}
