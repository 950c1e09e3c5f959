"""Personal data never reaches the logs of real worker and beat processes, whose log handlers Celery sets up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from contracts.operations.processes import beat_command
from rules.pii import mask_pii
from tests.inference.fake_server import Recorded, Scripted, scripted_server
from tests.workers import ROOT, celery_worker, process_group_stop, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PHONE, ID_NUMBER, BANK_CARD = "13912345678", "11010519491231002X", "6222021234567890128"
PERSONAL = (PHONE, ID_NUMBER, BANK_CARD)
TICKET = (
    f"市民来电反映：小区门口道路井盖破损多日，夜间有行人摔倒。联系电话{PHONE}，身份证号{ID_NUMBER}，"
    f"补贴请打到银行卡{BANK_CARD}。希望尽快派人维修。"
)


def _rejecting_and_quoting(recorded: Recorded) -> Scripted:
    """A model server that rejects every question and quotes it back, as servers do in error messages."""
    return Scripted(400, "cannot serve this request: " + json.dumps(recorded.body, ensure_ascii=False))


def test_the_personal_data_in_this_ticket_is_what_the_mask_hides() -> None:
    masked = mask_pii(TICKET)
    assert not any(value in masked for value in PERSONAL)


def test_worker_logs_of_a_failing_and_a_succeeding_stage_hold_no_personal_data(
    actors: Any, live_server: Any, redis_flushed: str, tmp_path: Path
) -> None:
    log_path = tmp_path / "worker.log"
    headers = {"Authorization": f"Api-Key {actors.acme_key}"}
    with httpx.Client(base_url=live_server.url, headers=headers, timeout=30) as client, scripted_server() as llm:
        llm.count_chars_as_tokens, llm.fallback = True, _rejecting_and_quoting
        submitted = client.post("/api/v1/documents/", json={"kind": "ticket", "text": TICKET, "channel": "phone"})
        assert submitted.status_code == 201, submitted.text
        document_id = submitted.json()["document"]["id"]
        env = {
            "LLM_ENABLED": "true",
            "LLM_BASE_URL": llm.base_url,
            "LLM_CONTEXT_TOKENS": "8192",  # the server counts a token a character: room for the prompt
            "LLM_ENGINE": "vllm",
            "LLM_POLICY": "always",
            "DOCGATE_LLM_WAIT_MAX_S": "0",  # the model's rejection ends its stage at once: rules-only, review
        }
        with celery_worker(extra_env=env, log_path=log_path):
            finished = wait_until(
                lambda: client.get(f"/api/v1/documents/{document_id}/").json()["job"]["state"] == "needs_review",
                timeout_s=90,
            )
    log = log_path.read_text(errors="replace")
    assert finished, log[-3000:]
    # The failing stage (the model's) was logged with the server's answer, which quoted the document…
    questions = [json.dumps(r.body, ensure_ascii=False) for r in llm.requests if "/tokenize" not in r.path]
    assert any(PHONE in question for question in questions)
    assert "LLM server rejected the request" in log
    # …and the stages that succeeded were logged too; neither line carries the caller's personal data.
    assert "needs_review" in log or "done" in log
    assert not [value for value in PERSONAL if value in log], log[-3000:]


_BEAT_PROBE = """
import logging, sys
from celery.signals import beat_init
from config.celery import app

def probe(**_):
    logging.getLogger("docgate.probe").warning("caller %s, card %s", "{phone}", "{card}")
    print("printed {id_number}")  # beat redirects stdout into its logger
    logging.getLogger("celery.beat").warning("beat saw {phone}")
    sys.stdout.flush()

beat_init.connect(probe, weak=False)
app.start(sys.argv[1:])
"""


def test_beat_logs_hold_no_personal_data(redis_flushed: str, tmp_path: Path) -> None:
    from django.conf import settings

    probe = _BEAT_PROBE.format(phone=PHONE, card=BANK_CARD, id_number=ID_NUMBER)
    command = [sys.executable, "-c", probe, *beat_command(str(tmp_path / "schedule"))[3:]]
    log_path = tmp_path / "beat.log"
    env = {"REDIS_URL": settings.REDIS_URL, "DOCGATE_DATA_DIR": str(settings.DATA_DIR), "PYTHONUNBUFFERED": "1"}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            assert wait_until(lambda: "beat saw" in log_path.read_text(errors="replace"), timeout_s=60), (
                log_path.read_text(errors="replace")[-3000:]
            )
        finally:
            process_group_stop(process, grace_s=10)
    text = log_path.read_text(errors="replace")
    assert "caller" in text and "printed" in text
    assert not [value for value in PERSONAL if value in text], text[-3000:]
