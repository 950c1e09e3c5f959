"""The whole pipeline on one local file, without the database or the queue (`manage.py analyze`).

The same stages a worker runs (extract → normalize → rules → gate → plan → LLM → merge → respond) over a document
held in memory: nothing is stored and nothing is sent, and the answer is the result `data` the API would show for it.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from contracts.cascade import OFF
from contracts.intake.errors import ExtractionError
from contracts.intake.submission import IntakeError, Submission, refusal_status, submission_validate
from contracts.models import Document, DocumentSource, Job, Organisation
from contracts.pipeline import result_data
from contracts.stages.base import JobContext, Stage
from contracts.stages.extract import ExtractionStage
from contracts.stages.gate import GateStage
from contracts.stages.llm import LLMStage
from contracts.stages.merge import MergeStage
from contracts.stages.normalize import NormalizeStage
from contracts.stages.plan import PlanStage, cascade_settings
from contracts.stages.respond import RespondStage
from contracts.stages.rules import RulesStage


def document_analyze(
    raw: bytes, *, name: str, kind: str, llm: bool = False, organisation_slug: str = ""
) -> dict[str, Any]:
    """Read `raw` as intake would (same checks and extraction) and run every stage on it; return the result data
    (see `document_context`)."""
    context = document_context(raw, name=name, kind=kind, llm=llm, organisation_slug=organisation_slug)
    return result_data(context).as_json()


def document_context(raw: bytes, *, name: str, kind: str, llm: bool = False, organisation_slug: str = "") -> JobContext:
    """Read `raw` as intake would (same checks and extraction) and run every stage on it; return the context
    (its result data, the LLM plan and what the model did).

    Raises `IntakeError` (with `code` and `message`) when the file cannot be read. `organisation_slug` picks that
    organisation's trained models (ticket classifier, safety model) from DOCGATE_MODELS_DIR; none by default.
    QA sampling is off: a local analysis has no review queue to sample for.
    """
    validated = submission_validate(Submission(kind=kind, source=DocumentSource.API, data=raw, original_name=name))
    text, content_type, encoding = validated.text, validated.content_type, validated.encoding
    organisation = Organisation(slug=organisation_slug, name=organisation_slug or "local")
    document = Document(
        id=uuid.uuid4(), organisation=organisation, kind=kind, source=DocumentSource.API, text=text,
        content_type=content_type, encoding=encoding, size_bytes=len(raw), original_name=name[:255],
    )  # fmt: skip
    job = Job(id=uuid.uuid4(), organisation=organisation, document=document)
    ctx = JobContext(job=job, document=document, attempt=1, text=text)
    knobs = cascade_settings()
    stages: list[Stage] = [
        ExtractionStage(original=raw), NormalizeStage(), RulesStage(), GateStage(),
        PlanStage(knobs if llm else replace(knobs, policy=OFF)), LLMStage(), MergeStage(qa_sampling=False),
        RespondStage(),
    ]  # fmt: skip
    try:
        for stage in stages:
            stage.run(ctx)
    except ExtractionError as exc:
        raise IntakeError(exc.code, exc.message, refusal_status(exc)) from exc
    return ctx


WARM_UP_SAMPLES = {
    "contract": "第一条 合同期限为一年。\n第二条 违约方应支付违约金。\n第三条 争议提交仲裁委员会仲裁。",
    "ticket": "小区楼下餐馆夜间油烟扰民，多次反映未处理，请尽快解决。",
}


def rules_warm_up() -> None:
    """Run the rule stages once on a short contract and ticket held in memory, so that a worker loads its rule
    packs, normalization tables and models (safety, clause headings, ticket classes) as it starts rather than on
    its first job (about 1.4 s on two cores)."""
    for kind, text in WARM_UP_SAMPLES.items():
        document_context(text.encode("utf-8"), name=f"warm-up.{kind}.txt", kind=kind)
