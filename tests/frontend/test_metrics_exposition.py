"""/metrics as Prometheus reads it: promtool finds nothing wrong, and the shipped dashboard only queries metric
names DocGate exports (deploy/grafana/dashboards/docgate.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import JobState
from contracts.pipeline import job_run
from tests.promtool import promtool_run

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "docgate.json"
TICKET = "我是A市居民，小区楼下餐馆油烟太大，多次反映至今未解决。"
NAME = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")
# PromQL words that look like metric names: grouping and vector-matching keywords, set operators.
PROMQL_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless"}


@pytest.fixture
def scraped(scrape: Any, actors: Any, settings: Any) -> str:
    """/metrics after a pipeline job ran in this process, with the LLM on (its breaker series) and after a
    first scrape (django-prometheus' response series): every labelled family DocGate has is present."""
    job = document_submit(organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=TICKET)).job
    assert job_run(job.pk, "exposition-test").status in (JobState.DONE, JobState.NEEDS_REVIEW)
    settings.LLM_ENABLED = True
    assert scrape().status_code == 200
    response = scrape()
    assert response.status_code == 200
    return response.content.decode()


def exported_names(exposition: str) -> set[str]:
    """The sample names in a text exposition (`docgate_stage_seconds_bucket`, not the family's name)."""
    names = set()
    for line in exposition.splitlines():
        if line and not line.startswith("#") and (match := NAME.match(line)):
            names.add(match.group())
    return names


def promql_metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects: identifiers that are not functions, keywords, label names,
    label values or range durations."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    expr = re.sub(r"\{[^}]*\}|\[[^\]]*\]", " ", expr)
    expr = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", expr)
    names = set()
    for match in NAME.finditer(expr):
        before, after = expr[: match.start()][-1:], expr[match.end() :].lstrip()[:1]
        if after == "(" or match.group() in PROMQL_KEYWORDS or (before and (before.isalnum() or before in "._$")):
            continue
        names.add(match.group())
    return names


def dashboard_exprs() -> list[str]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return [target["expr"] for panel in panels for target in panel.get("targets", [])]


@pytest.mark.parametrize(
    ("expr", "names"),
    [
        ('sum by (state) (docgate_jobs{state="queued"})', {"docgate_jobs"}),
        (
            "histogram_quantile(0.95, sum by (le, stage) (rate(docgate_stage_seconds_bucket[$__rate_interval])))",
            {"docgate_stage_seconds_bucket"},
        ),
        ("sum(a_total) / scalar(sum(b)) * 60 and on (job) c", {"a_total", "b", "c"}),
        ("docgate_jobs_waiting_for_llm", {"docgate_jobs_waiting_for_llm"}),
    ],
    ids=["selector-with-labels", "histogram-quantile", "binary-operators", "bare-name"],
)
def test_metric_names_are_read_from_promql(expr: str, names: set[str]) -> None:
    assert promql_metric_names(expr) == names


@pytest.mark.django_db
def test_promtool_finds_no_error_or_lint_problem_in_the_exposition(scraped: str) -> None:
    assert 'docgate_gate_decisions{decision="allow"}' in scraped and "docgate_llm_breaker_open" in scraped
    status, output = promtool_run("check", "metrics", stdin=scraped.encode())
    assert status == 0 and not output.strip(), output


@pytest.mark.django_db
def test_every_metric_the_dashboard_queries_is_exported(scraped: str) -> None:
    queried = set().union(*map(promql_metric_names, dashboard_exprs()))
    # Stage latency, queue depth, review backlog, gate decisions and the LLM breaker, at least.
    covered = {"docgate_stage_seconds_bucket", "docgate_jobs", "docgate_jobs_waiting_for_llm"}
    covered |= {"docgate_review_queue_depth", "docgate_gate_decisions", "docgate_llm_breaker_open"}
    assert covered <= queried, covered - queried
    assert queried - exported_names(scraped) == set()
