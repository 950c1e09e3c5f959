"""Redis loses its queue, the LLM server is down for a minute mid-batch: jobs still all complete, each once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobState, Result
from tests.faults.helpers import celery_beat, fault_worker_env, log_tail, redis_restart_losing_data
from tests.llm_server import LocalLLMServer
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def all_final(jobs: list[Job]) -> bool:
    return (
        Job.objects.filter(pk__in=[job.pk for job in jobs])
        .exclude(state__in=[JobState.DONE, JobState.NEEDS_REVIEW, JobState.FAILED])
        .count()
        == 0
    )


def one_final_result_each(jobs: list[Job]) -> bool:
    return all(Result.objects.filter(job=job, final=True).count() == 1 for job in jobs)


def test_redis_restart_losing_queued_messages_is_healed_by_the_sweeper(
    actors: Any, redis_flushed: str, tmp_path: Path
) -> None:
    import redis

    jobs = [
        document_submit(
            organisation=actors.acme,
            submission=Submission(kind="contract", source="api", text=f"第{n}条 本合同有效期{n}年。"),
        ).job
        for n in range(1, 6)
    ]
    broker = redis.Redis.from_url(redis_flushed)
    assert broker.llen("celery") == 5
    redis_restart_losing_data(redis_flushed)
    assert broker.llen("celery") == 0  # the messages are gone; the rows in PostgreSQL are not
    env = fault_worker_env(tmp_path)
    log = tmp_path / "worker.log"
    with celery_worker(extra_env=env, log_path=log), celery_beat(extra_env=env, folder=tmp_path):
        finished = wait_until(lambda: all_final(jobs), timeout_s=60)
    assert finished, log_tail(log) + log_tail(tmp_path / "beat.log")
    assert set(Job.objects.filter(pk__in=[j.pk for j in jobs]).values_list("state", flat=True)) == {JobState.DONE}
    assert one_final_result_each(jobs)
    assert "sweeper re-enqueued" in log.read_text(errors="replace")


TICKETS = [
    "小区楼下的餐馆每天晚上排油烟，噪音也很大，多次反映至今未解决，请环保部门处理。",
    "我们村的自来水已经停了三天，没有任何通知，老人孩子用水困难，请尽快恢复供水。",
    "公交车司机不按站点停车，乘客在站台等了四十分钟也没有车来，希望加强管理。",
    "路灯坏了两个星期，晚上小区门口一片漆黑，已经有人摔倒，请市政部门维修。",
    "施工工地夜间施工到凌晨两点，噪音扰民严重，影响附近居民休息，请城管处理。",
]


def ticket_jobs(actors: Any, texts: list[str], tag: str) -> list[Job]:
    return [
        document_submit(
            organisation=actors.acme, submission=Submission(kind="ticket", source="api", text=f"{text}（{tag}）")
        ).job
        for text in texts
    ]


def refreshed(jobs: list[Job]) -> list[Job]:
    return list(Job.objects.filter(pk__in=[job.pk for job in jobs]))


def contract_jobs(actors: Any, count: int) -> list[Job]:
    """`count` distinct short contracts (a penalty and a dispute clause each)."""
    return [
        document_submit(
            organisation=actors.acme,
            submission=Submission(
                kind="contract",
                source="api",
                text=f"第一条 违约责任\n任何一方违约的，应向对方支付违约金人民币{n + 1}万元。\n"
                "第二条 争议解决\n因本合同发生的争议，提交上海仲裁委员会仲裁。\n",
            ),
        ).job
        for n in range(count)
    ]


@pytest.mark.llm
def test_a_60_second_llm_outage_makes_jobs_wait_and_all_finish_with_the_model_once(
    actors: Any, redis_flushed: str, llm_server: LocalLLMServer, tmp_path: Path, settings: Any
) -> None:
    """20 jobs, the model server stopped for 60 s and started again: nothing goes to review for want of the model;
    every job ends with the model's answers, one final result and one result.final webhook each."""
    from contracts.models import WebhookDelivery
    from contracts.webhooks.endpoints import webhook_endpoint_configure
    from tests.unit.test_webhook_delivery import local_receiver

    settings.DOCGATE_WEBHOOK_ALLOW_PRIVATE = True
    env = fault_worker_env(
        tmp_path,
        LLM_ENABLED="true",
        LLM_POLICY="always",  # every job has questions for the model
        LLM_BASE_URL=llm_server.base_url,
        LLM_ENGINE="llamacpp",
        LLM_MODEL="gemma-3-270m",
        LLM_MAX_OUTPUT_TOKENS="48",
        LLM_MAX_RETRIES="0",
        LLM_TIMEOUT_S="120",
        LLM_BREAKER_FAILURES="2",
        LLM_BREAKER_COOLDOWN_S="5",
        LLM_DRAFTS="false",
        DOCGATE_LLM_WAIT_MAX_S="900",
        LLM_STANDING_FLOOR="0",  # every job asks its questions, however the small model answers them
    )
    log = tmp_path / "worker.log"
    with local_receiver() as receiver:
        webhook_endpoint_configure(organisation=actors.acme, user=None, url=receiver.url)
        try:
            llm_server.stop()
            jobs = contract_jobs(actors, 20)
            with celery_worker(extra_env=env, log_path=log):
                waiting = Job.objects.filter(pk__in=[j.pk for j in jobs], llm_waiting_since__isnull=False)
                assert wait_until(lambda: waiting.count() >= 1, timeout_s=90), log_tail(log)
                provisional = Result.objects.filter(job__in=jobs, final=False)
                assert wait_until(lambda: provisional.count() == 20, timeout_s=120), log_tail(log)
                time.sleep(60)
                llm_server.start()
                assert wait_until(lambda: all_final(jobs), timeout_s=900), log_tail(log)
                assert wait_until(lambda: len(receiver.requests) >= 20, timeout_s=120), log_tail(log)
                time.sleep(2)  # nothing more arrives
        finally:
            llm_server.start()  # other tests share this server
    jobs = refreshed(jobs)
    assert [j.review_reasons for j in jobs if "llm_unavailable" in j.review_reasons] == []
    assert not [j for j in jobs if j.degraded]
    assert one_final_result_each(jobs)
    for job in jobs:
        final = Result.objects.get(job=job, final=True)
        assert final.provenance["llm"]["tasks"]["clauses_extract"]["calls"] >= 1
        assert "error" not in final.provenance["llm"]
    events = list(WebhookDelivery.objects.filter(event="result.final").values_list("payload", flat=True))
    assert sorted(e["document"]["id"] for e in events) == sorted(str(j.document_id) for j in jobs)
    assert len(receiver.requests) == 20
