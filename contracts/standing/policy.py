"""The standing policy: below LLM_STANDING_FLOOR over the last LLM_STANDING_WINDOW answers, an organisation's
question is not asked (rules-only by policy) except for a probe every LLM_STANDING_PROBE_EVERY documents that would
have asked it, or once LLM_STANDING_PROBE_AFTER_S has passed since the last probe, so that a better model can earn
its place back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from contracts.cascade import Standing, StandingCheck
from contracts.standing.models import LLMAnswer, LLMProbe

# The questions whose answers are counted (a Cantonese rewrite and a draft have no evidence to ground).
TRACKED = ("gate", "clauses", "ticket_category")
PROBE_CLAIM_TRIES = 20


@dataclass(frozen=True)
class TaskStanding:
    """One organisation's question to one model over its window of answers."""

    organisation: str
    task: str
    model: str
    answers: int
    valid: float
    grounded: float
    agreed: float
    useful: float  # valid, grounded and not disagreeing with the final result

    @property
    def judged(self) -> bool:
        return self.answers >= settings.LLM_STANDING_MIN_ANSWERS

    @property
    def rules_only(self) -> bool:
        return self.judged and self.useful < settings.LLM_STANDING_FLOOR

    def as_dict(self) -> dict[str, Any]:
        return {
            "organisation": self.organisation,
            "task": self.task,
            "model": self.model,
            "answers": self.answers,
            "valid": self.valid,
            "grounded": self.grounded,
            "agreed": self.agreed,
            "useful": self.useful,
            "state": "rules_only" if self.rules_only else "asked",
        }


def _share(count: int, total: int) -> float:
    return round(count / total, 4) if total else 0.0


def task_standing(organisation_id: Any, task: str, model: str, organisation: str = "") -> TaskStanding:
    """The question's standing over its newest LLM_STANDING_WINDOW answers (one indexed query)."""
    rows = list(
        LLMAnswer.objects.filter(organisation_id=organisation_id, task=task, model=model)
        .order_by("-id")
        .values_list("valid", "grounded", "agreed")[: settings.LLM_STANDING_WINDOW]
    )
    return _standing(organisation, task, model, rows)


def _standing(organisation: str, task: str, model: str, rows: list[tuple[bool, bool, bool | None]]) -> TaskStanding:
    """The standing a window of (valid, grounded, agreed) answers gives."""
    n = len(rows)
    answered = [agreed for valid, grounded, agreed in rows if valid and grounded]
    return TaskStanding(
        organisation=organisation,
        task=task,
        model=model,
        answers=n,
        valid=_share(sum(valid for valid, _, _ in rows), n),
        grounded=_share(len(answered), n),
        agreed=_share(sum(agreed is True for agreed in answered), len(answered)),
        useful=_share(sum(agreed is not False for agreed in answered), n),
    )


def probe_claim(organisation_id: Any, task: str, model: str) -> bool:
    """Count one skipped question, or claim the probe when its turn has come (the LLM_STANDING_PROBE_EVERY-th, or
    LLM_STANDING_PROBE_AFTER_S after the last probe). Compare-and-set: the UPDATE applies only to the count this
    call read, so concurrent plans each take their own turn (no lock held, no turn lost or taken twice); a plan
    that loses the race reads again."""
    every, after_s = settings.LLM_STANDING_PROBE_EVERY, settings.LLM_STANDING_PROBE_AFTER_S
    key = {"organisation_id": organisation_id, "task": task, "model": model}
    # The first skip starts the count (a row that exists already is left as it is).
    LLMProbe.objects.bulk_create([LLMProbe(**key, probed_at=timezone.now())], ignore_conflicts=True)
    for _ in range(PROBE_CLAIM_TRIES):
        skipped, probed_at = LLMProbe.objects.filter(**key).values_list("skipped", "probed_at").get()
        now = timezone.now()
        due = (every > 0 and skipped + 1 >= every) or (
            after_s > 0 and (probed_at is None or probed_at < now - timedelta(seconds=after_s))
        )
        turn = LLMProbe.objects.filter(**key, skipped=skipped, probed_at=probed_at)
        if turn.update(**({"skipped": 0, "probed_at": now} if due else {"skipped": skipped + 1})):
            return due
    return False  # as many plans as tries took the turns at once: this one skips without counting


def _why(standing: TaskStanding, model: str) -> str:
    return (
        f"useful share {standing.useful:.2f} < {settings.LLM_STANDING_FLOOR} over the last "
        f"{standing.answers} answers of {model}"
    )


def standing_check(organisation_id: Any, model: str) -> StandingCheck:
    """The plan's check of a question it would ask: None to ask it, else a `Standing` (skip, or ask as a probe)."""

    def check(task: str) -> Standing | None:
        if task not in TRACKED or settings.LLM_STANDING_FLOOR <= 0:
            return None
        standing = task_standing(organisation_id, task, model)
        if not standing.rules_only:
            return None
        why = _why(standing, model)
        if probe_claim(organisation_id, task, model):
            return Standing(ask=True, note=f"probe: {why}")
        return Standing(ask=False, note=f"rules-only by policy: {why}")

    return check


def standing_recheck(organisation_id: Any, model: str) -> StandingCheck:
    """The model phase's second look at a planned question: skip it when the model has fallen below its floor since
    the plan (a batch is planned before the model answers any of it); it claims no probe."""

    def check(task: str) -> Standing | None:
        if task not in TRACKED or settings.LLM_STANDING_FLOOR <= 0:
            return None
        standing = task_standing(organisation_id, task, model)
        if not standing.rules_only:
            return None
        return Standing(ask=False, note=f"rules-only by policy, when its turn came: {_why(standing, model)}")

    return check


def standings() -> list[TaskStanding]:
    """Every organisation's questions and models with answers, as /readyz and /metrics show them: one query (each
    key's newest LLM_STANDING_WINDOW answers, numbered by a window function), however many keys there are."""
    newest = Window(RowNumber(), partition_by=["organisation_id", "task", "model"], order_by=F("id").desc())
    rows = (
        LLMAnswer.objects.annotate(newest=newest)
        .filter(newest__lte=settings.LLM_STANDING_WINDOW)
        .values_list("organisation_id", "organisation__slug", "task", "model", "valid", "grounded", "agreed")
    )
    windows: dict[tuple[Any, str, str, str], list[tuple[bool, bool, bool | None]]] = {}
    for organisation_id, slug, task, model, valid, grounded, agreed in rows:
        windows.setdefault((organisation_id, slug, task, model), []).append((valid, grounded, agreed))
    return [
        _standing(slug, task, model, answers)
        for (_, slug, task, model), answers in sorted(windows.items(), key=lambda item: item[0][1:])
    ]
