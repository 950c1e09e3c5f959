"""Shared steps of the ticket deadline tests: a ticket submitted through the API and run through the pipeline."""

from __future__ import annotations

from typing import Any

from contracts.models import Document
from contracts.pipeline import job_run

STREETLIGHT = "小区门口的路灯坏了好几天了，晚上出行很不方便，希望有关部门尽快维修。"  # general: 7 working days
NO_WATER = "我们小区从昨天开始停水，到现在还没有来水，居民生活受到很大影响。"  # utilities: 24 hours
GAS_LEAK = "楼道里燃气泄漏，味道很大，随时可能爆炸，有生命危险，请马上派人处理！"  # emergency: 2 hours


def ticket_submitted(api: Any, text: str = STREETLIGHT, **fields: Any) -> Document:
    """Submit a ticket through the API (with any extra fields, e.g. received_at) and run its job to the end."""
    answer = api.post("/api/v1/documents/", {"kind": "ticket", "text": text, **fields}, format="json")
    assert answer.status_code == 201, answer.json()
    job_run(answer.json()["document"]["job"]["id"], "test-worker")
    return Document.objects.get(pk=answer.json()["document"]["id"])
