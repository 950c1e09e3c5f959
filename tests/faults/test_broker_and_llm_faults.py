"""Redis loses its queue, the LLM server dies mid-batch: jobs still all complete, each once."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from contracts.intake.submission import Submission, document_submit
from contracts.models import Job, JobState, Result
from inference.local_server import LocalLLMServer
from tests.faults.helpers import celery_beat, fault_worker_env, log_tail, redis_restart_losing_data
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def all_final(jobs: list[Job]) -> bool:
    return (
        Job.objects.filter(pk__in=[job.pk for job in jobs])
        .exclude(state__in=[JobState.DONE, JobState.NEEDS_REVIEW, JobState.FAILED])
        .count()
        == 0
    )


def one_result_each(jobs: list[Job]) -> bool:
    return all(Result.objects.filter(job=job).count() == 1 for job in jobs)


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
    assert one_result_each(jobs)
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


@pytest.mark.llm
def test_llm_server_killed_mid_batch_sends_degraded_jobs_to_review_and_later_jobs_use_it_again(
    actors: Any, redis_flushed: str, llm_server: LocalLLMServer, tmp_path: Path
) -> None:
    env = fault_worker_env(
        tmp_path,
        LLM_ENABLED="true",
        LLM_BASE_URL=llm_server.base_url,
        LLM_ENGINE="llamacpp",
        LLM_MODEL="gemma-3-270m",
        LLM_MAX_OUTPUT_TOKENS="48",
        LLM_MAX_RETRIES="0",
        LLM_TIMEOUT_S="120",
        LLM_BREAKER_FAILURES="2",
        LLM_BREAKER_COOLDOWN_S="1",
        LLM_DRAFTS="false",
    )
    log = tmp_path / "worker.log"
    batch = ticket_jobs(actors, TICKETS[:4], "批次")
    try:
        with celery_worker(extra_env=env, log_path=log):
            assert wait_until(lambda: any(j.is_final for j in refreshed(batch)), timeout_s=90), log_tail(log)
            assert llm_server.process is not None
            llm_server.process.send_signal(signal.SIGKILL)  # the server dies with the rest of the batch pending
            llm_server.stop()
            assert wait_until(lambda: any(j.degraded for j in refreshed(batch)), timeout_s=60), log_tail(log)
            llm_server.start()
            # Shared 2-core machines: a cold llama.cpp answers the first prompt slowly.
            assert wait_until(lambda: all_final(batch), timeout_s=180), log_tail(log)
            time.sleep(1.5)  # the breaker's cool-down: the next call is a trial
            later = ticket_jobs(actors, TICKETS[4:5], "恢复后")
            assert wait_until(lambda: all_final(later), timeout_s=180), log_tail(log)
    finally:
        llm_server.start()  # other tests share this server
    batch, later = refreshed(batch), refreshed(later)
    assert one_result_each(batch + later)
    assert any(not job.degraded for job in batch)  # done before the kill, with the LLM
    for job in (j for j in batch if j.degraded):
        assert job.state == JobState.NEEDS_REVIEW and "llm_unavailable" in job.review_reasons
        assert Result.objects.get(job=job).data["degraded"] is True
    for job in later:
        assert not job.degraded, job.review_reasons
        result = Result.objects.get(job=job)
        assert result.provenance["llm"]["breaker"]["state"] == "closed"
        assert result.provenance["llm"]["tasks"]["ticket_classify"]["calls"] >= 1
