"""Counting the model's answers: whether each was valid, grounded and agreed with the final result, stored with the
job's final result and judged again when a reviewer finalises the document."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from contracts.findings import Finding
from contracts.gate import GateDecision, PolicyAnswer
from contracts.standing.models import LLMAnswer
from inference.answers import LLMTaskResult
from rules.clauses import PRESENT, STIPULATED

GATE_TASK = "gate"
# A reviewer's mark that chose a finding (over another answer to the same single question).
CHOSEN = ("approved", "corrected")


@dataclass
class AnswerMark:
    """One answer of this job's model, as the standing policy counts it."""

    task: str
    valid: bool
    grounded: bool
    named: list[str] = field(default_factory=list)  # "kind:label" the model's grounded findings name
    # What agreement is judged on: finding kind -> whether it holds a single answer, and the labels asked about
    # (none: every label of those kinds).
    scope: dict[str, Any] = field(default_factory=dict)
    agreed: bool | None = None

    @property
    def answered(self) -> bool:
        """The model answered: validly, and with evidence that stands in the text."""
        return self.valid and self.grounded


def _key(finding: Mapping[str, Any]) -> str:
    return f"{finding['kind']}:{finding.get('label') or ''}"


def desk_answer_mark(
    task: str, result: LLMTaskResult, findings: Sequence[Finding], kinds: Mapping[str, bool], labels: Sequence[str]
) -> AnswerMark:
    """The mark of a desk question's answer: valid when a reply parsed against its schema, grounded when none of
    its quotes had to be dropped."""
    valid = result.calls > result.invalid_outputs
    grounded = valid and result.dropped_ungrounded == 0
    named = sorted({_key(f) for f in findings if f["kind"] in kinds})
    return AnswerMark(task, valid, grounded, named, {"kinds": dict(kinds), "labels": list(labels)})


def gate_answer_mark(rules: GateDecision, answer: PolicyAnswer) -> AnswerMark:
    """The mark of the policy question's answer: a yes/no has no quote to ground; it agrees when it holds the text
    unsafe exactly when the rules' own decision does not allow it."""
    if answer.risk is None:
        return AnswerMark(GATE_TASK, valid=False, grounded=False)
    unsafe = answer.risk >= settings.SAFETY_REVIEW_THRESHOLD
    return AnswerMark(GATE_TASK, True, True, agreed=unsafe == (rules.decision != "allow"))


def final_labels(findings: Iterable[Mapping[str, Any]], scope: Mapping[str, Any]) -> set[str]:
    """The labels the final result holds in an answer's scope: present findings of its kinds, not a conflicting
    answer a reviewer did not choose; for a single answer, the one a reviewer chose when they chose one."""
    kinds: Mapping[str, bool] = scope.get("kinds", {})
    labels = set(scope.get("labels") or ())
    held: dict[str, list[Mapping[str, Any]]] = {}
    for finding in findings:
        kind, label = finding.get("kind"), finding.get("label")
        if kind not in kinds or not label or (labels and label not in labels):
            continue
        if finding.get("status", STIPULATED) not in PRESENT:
            continue
        if finding.get("conflict") and finding.get("review") not in CHOSEN:
            continue
        held.setdefault(str(kind), []).append(finding)
    out: set[str] = set()
    for kind, found in held.items():
        chosen = [f for f in found if f.get("review") in CHOSEN] if kinds[kind] else []
        out.update(_key(f) for f in (chosen or found))
    return out


def marks_agree(marks: Iterable[AnswerMark], findings: Sequence[Finding]) -> None:
    """Judge each desk answer that answered against the merged findings (the gate's is judged when asked)."""
    for mark in marks:
        if mark.answered and mark.scope:
            mark.agreed = set(mark.named) == final_labels(findings, mark.scope)


def answers_store(*, organisation_id: Any, job_id: Any, model: str, marks: Sequence[AnswerMark]) -> None:
    """One INSERT of this job's answers (called once, where the job's final result is stored)."""
    if not marks:
        return
    LLMAnswer.objects.bulk_create(
        LLMAnswer(
            organisation_id=organisation_id,
            job_id=job_id,
            task=mark.task,
            model=model,
            valid=mark.valid,
            grounded=mark.grounded,
            agreed=mark.agreed,
            named=mark.named,
            scope=mark.scope,
        )
        for mark in marks
    )


def answers_review(*, job_id: Any, findings: Sequence[Mapping[str, Any]]) -> int:
    """Judge the job's answered desk questions again against the reviewed findings; one UPDATE per answer whose
    agreement changed. Return how many changed."""
    changed = 0
    answered = LLMAnswer.objects.filter(job_id=job_id, valid=True, grounded=True).exclude(task=GATE_TASK)
    for row in answered.only("pk", "named", "scope", "agreed"):
        agreed = set(row.named) == final_labels(findings, row.scope)
        if agreed != row.agreed:
            changed += LLMAnswer.objects.filter(pk=row.pk).update(agreed=agreed)
    return changed
