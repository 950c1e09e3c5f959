"""Reviewed documents made the way a reviewer makes them (the review workflow), for the learning tests."""

from __future__ import annotations

import hashlib
from typing import Any

from contracts.models import Document, Job, JobState, Result, ReviewTask
from contracts.review.workflow import review_finding_decide, review_task_claim, review_task_finalize, review_task_open


def document_reviewable(
    actors: Any,
    kind: str,
    text: str,
    findings: list[dict[str, Any]],
    *,
    reasons: tuple[str, ...] = ("qa_sample",),
    **data: Any,
) -> ReviewTask:
    """A document of Acme with a result of `findings` (and `data` beside them) waiting for review for `reasons`."""
    document = Document.objects.create(
        organisation=actors.acme,
        kind=kind,
        source="api",
        content_type="text/plain",
        size_bytes=len(text.encode()),
        sha256=hashlib.sha256(text.encode()).hexdigest(),
        text=text,
    )
    job = Job.objects.create(
        organisation=actors.acme, document=document, state=JobState.NEEDS_REVIEW, review_reasons=list(reasons)
    )
    result = Result.objects.create(
        organisation=actors.acme, document=document, job=job, version=1,
        data={"kind": kind, "findings": findings, "suggested_response": "已收到。", **data},
    )  # fmt: skip
    return review_task_open(job=job, reasons=list(reasons), result=result)


def ticket_reviewed(actors: Any, text: str, said: tuple[str, str, str], gold: tuple[str, str, str] | None = None,
                    urgency: str = "normal") -> ReviewTask:  # fmt: skip
    """Rita reviews a ticket the rules put in `said` (level1, level2, level3): approves it, or corrects it to
    `gold` when given."""
    category = {"id": "C1", "kind": "ticket_category", "label": said[0], "level2": said[1], "level3": said[2],
                "department": "", "source": "rule"}  # fmt: skip
    task = document_reviewable(actors, "ticket", text, [category, {"id": "U1", "kind": "urgency", "label": urgency,
                                                                    "source": "rule"}])  # fmt: skip
    review_task_claim(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    if gold is None:
        review_finding_decide(task_id=task.pk, user=actors.rita, organisation=actors.acme, finding_id="C1",
                              decision="approve")  # fmt: skip
    else:
        corrected = {"label": gold[0], "level2": gold[1], "level3": gold[2], "department": ""}
        review_finding_decide(task_id=task.pk, user=actors.rita, organisation=actors.acme, finding_id="C1",
                              decision="correct", corrected=corrected)  # fmt: skip
    review_task_finalize(task_id=task.pk, user=actors.rita, organisation=actors.acme)
    return task
