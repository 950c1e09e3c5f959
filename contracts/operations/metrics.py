"""Prometheus metrics: stage latency observed as jobs finish, plus gauges read from the database at scrape time.

Web and workers are separate processes, so the in-process histogram only sees jobs this process ran (set
PROMETHEUS_MULTIPROC_DIR to aggregate processes); everything operators alert on — jobs by state, queue depth
and age, gate decisions, degraded jobs — is read from the database when /metrics is scraped, with six aggregate
queries that indexes answer (migration 0005): no row's JSON is read, so a scrape stays cheap as results pile up.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Min
from django.db.models.signals import post_save
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from contracts.llm import llm_client
from contracts.models import Job, JobState, Result, ReviewState, ReviewTask
from contracts.standing.policy import standings

STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# Gate decisions are counted over results this recent, so the gauge follows the current traffic.
GATE_WINDOW = timedelta(hours=24)

STAGE_SECONDS = Histogram(
    "docgate_stage_seconds", "Pipeline stage latency in seconds.", ["stage"], buckets=STAGE_BUCKETS
)
JOBS_FINISHED = Counter("docgate_jobs_finished", "Jobs this process finished, by final state.", ["state"])


def stage_timings_observe(timings: dict[str, Any]) -> None:
    """Record each stage's duration (`{"rules": {"ms": 12.5, ...}}`) in the stage histogram."""
    for stage, timing in timings.items():
        ms = timing.get("ms") if isinstance(timing, dict) else None
        if isinstance(ms, int | float):
            STAGE_SECONDS.labels(stage=stage).observe(ms / 1000.0)


def _pipeline_result_saved(sender: type[Result], instance: Result, created: bool, **kwargs: Any) -> None:
    """A pipeline run stored its result (the job row was finished with an UPDATE, which sends no signal)."""
    if not created or "review_task" in (instance.provenance or {}):
        return
    job = Job.objects.filter(pk=instance.job_id).values("state", "stage_timings").first()
    if job is None or job["state"] not in (JobState.DONE, JobState.NEEDS_REVIEW):
        return
    stage_timings_observe(job["stage_timings"] or {})
    JOBS_FINISHED.labels(state=job["state"]).inc()


post_save.connect(_pipeline_result_saved, sender=Result, dispatch_uid="docgate-metrics-result")


# A job waits for the model while it is provisional (between tries) or running its model questions.
WAITING_FOR_LLM = (JobState.PROVISIONAL, JobState.RUNNING)


class DatabaseCollector(Collector):
    """Gauges computed from the database at scrape time, so they hold across web and worker processes."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        jobs = GaugeMetricFamily("docgate_jobs", "Jobs by state.", labels=["state"])
        # COUNT(*) rather than COUNT(id): the state index alone answers it (an index-only scan on PostgreSQL).
        counts = dict(Job.objects.values_list("state").annotate(n=Count("*")).values_list("state", "n"))
        for state in JobState.values:
            jobs.add_metric([state], counts.get(state, 0))
        yield jobs
        waiting = Job.objects.filter(state__in=WAITING_FOR_LLM, llm_waiting_since__isnull=False).count()
        yield GaugeMetricFamily(
            "docgate_jobs_waiting_for_llm",
            "Jobs with a provisional result waiting for the model, which was unavailable (DOCGATE_LLM_WAIT_MAX_S).",
            value=waiting,
        )
        degraded = Job.objects.filter(degraded=True).count()
        yield GaugeMetricFamily("docgate_jobs_degraded", "Jobs finished without the LLM.", value=degraded)
        pending = ReviewTask.objects.exclude(state=ReviewState.FINALIZED)
        depth = GaugeMetricFamily("docgate_review_queue_depth", "Review tasks not finalized.", labels=["state"])
        by_state = dict(pending.values_list("state").annotate(n=Count("*")).values_list("state", "n"))
        for state in (ReviewState.OPEN, ReviewState.CLAIMED):
            depth.add_metric([state], by_state.get(state, 0))
        yield depth
        oldest = pending.aggregate(oldest=Min("created_at"))["oldest"]
        yield GaugeMetricFamily(
            "docgate_review_queue_oldest_age_seconds",
            "Age of the oldest review task not finalized.",
            value=(now - oldest).total_seconds() if oldest else 0.0,
        )
        gate = GaugeMetricFamily(
            "docgate_gate_decisions", "Safety gate decisions of pipeline results in the last 24 h.", labels=["decision"]
        )
        # One aggregate over the partial index of pipeline results' decisions (`Result.gate_decision`).
        decided = Result.objects.filter(created_at__gte=now - GATE_WINDOW).exclude(gate_decision="")
        by_decision = decided.values_list("gate_decision").annotate(n=Count("*")).values_list("gate_decision", "n")
        decisions = {"allow": 0, "review": 0, "block": 0, **dict(by_decision)}
        for decision, n in decisions.items():
            gate.add_metric([decision], n)
        yield gate
        yield from _standing_metrics()
        yield from _breaker_metrics()


def _standing_metrics() -> Iterator[Metric]:
    """Per organisation, question and model: whether the cascade asks it (contracts.standing) and the share of the
    model's recent answers that were of use."""
    labels = ["organisation", "task", "model"]
    rules_only = GaugeMetricFamily(
        "docgate_llm_task_rules_only",
        "1 while the model is not asked this question (rules-only by policy).",
        labels=labels,
    )
    useful = GaugeMetricFamily(
        "docgate_llm_task_useful_share",
        "Share of the model's last LLM_STANDING_WINDOW answers valid, grounded and agreeing with the final result.",
        labels=labels,
    )
    for standing in standings():
        key = [standing.organisation, standing.task, standing.model]
        rules_only.add_metric(key, 1.0 if standing.rules_only else 0.0)
        useful.add_metric(key, standing.useful)
    yield rules_only
    yield useful


def _breaker_metrics() -> Iterator[Metric]:
    """This process's LLM circuit breaker: state, failures and openings."""
    if not settings.LLM_ENABLED:
        return

    snapshot = llm_client().breaker.snapshot()
    state = GaugeMetricFamily("docgate_llm_breaker_open", "1 while this process's LLM breaker is open.")
    state.add_metric([], 1.0 if snapshot.state == "open" else 0.0)
    yield state
    yield GaugeMetricFamily("docgate_llm_breaker_openings", "Times the breaker opened.", value=snapshot.openings)
    yield GaugeMetricFamily("docgate_llm_errors", "LLM call failures seen by this process.", value=snapshot.failures)


def metrics_text() -> bytes:
    """Everything /metrics serves: process and django-prometheus metrics, DocGate's histograms and gauges."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        process = generate_latest(registry)
    else:
        process = generate_latest(REGISTRY)
    database = CollectorRegistry(auto_describe=False)
    database.register(DatabaseCollector())
    return process + generate_latest(database)


def bind_is_private(bind: str) -> bool:
    """Whether `host:port` (DOCGATE_BIND) listens on a loopback or private address only (`0.0.0.0` does not)."""
    host = bind.rsplit(":", 1)[0].strip("[]") if ":" in bind else bind
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: where it points is not ours to know
    return address.is_loopback or (address.is_private and not address.is_unspecified)


def _scrape_refusal(request: HttpRequest) -> HttpResponse | None:
    """None when this request may read /metrics: the bearer token when one is set, else a private bind."""
    token = settings.PROMETHEUS_METRICS_TOKEN
    if token:
        given = request.META.get("HTTP_AUTHORIZATION", "").removeprefix("Bearer ").strip()
        if constant_time_compare(given, token):
            return None
        return HttpResponse("unauthorized\n", status=401, content_type="text/plain")
    if bind_is_private(settings.DOCGATE_BIND):
        return None
    closed = "/metrics is closed: set PROMETHEUS_METRICS_TOKEN (Prometheus sends it as a bearer token)\n"
    return HttpResponse(closed, status=403, content_type="text/plain")


@never_cache
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Prometheus text format for a scraper with the bearer token (PROMETHEUS_METRICS_TOKEN); without a token
    configured, only where the web server binds a loopback or private address (DOCGATE_BIND), else 403."""
    refusal = _scrape_refusal(request)
    if refusal is not None:
        return refusal
    return HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)
