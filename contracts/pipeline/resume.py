"""The llm phase of a job resumes where its rules phase stopped: what the stages up to `plan` left on the context is
stored on the job (`rule_outputs` in its artifacts) and restored, not computed again.

Of those stages only normalize runs again: its offset map is not stored, and it is deterministic and cheap (6 ms
on the largest public contract, 12k characters, where extract, rules, gate and plan take 62 ms; 49 ms against 608
on all the public contracts joined, 94k).
A job whose artifacts hold no outputs in this format (queued before the llm phase resumed, by an older worker) runs
every stage in its llm phase, as it did before.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contracts.cascade import LLMPlan
from contracts.gate import GateDecision
from contracts.stages.base import JobContext, Stage

RULE_OUTPUTS = "rule_outputs"
# Bump when a stage up to `plan` writes a context field that is not stored here yet (and store it): outputs in an
# older format then make the job fall back to running every stage, rather than resume without that field.
RULE_OUTPUTS_FORMAT = 1
RESUMES_AFTER = "plan"  # the last stage whose outputs are stored
RERUN_BEFORE_RESUMING = frozenset({"normalize"})  # stages up to it whose outputs are not stored


def rule_outputs(ctx: JobContext) -> dict[str, Any]:
    """What the stages up to `plan` left on the context, as JSON for the job's artifacts; the findings are copied,
    as the merge stage changes them in place."""
    assert ctx.plan is not None, "the plan stage has run"
    return {
        "format": RULE_OUTPUTS_FORMAT,
        "findings": copy.deepcopy(ctx.findings),
        "gate": ctx.decided_gate().as_dict(),
        "plan": ctx.plan.record(),
        "rule_packs": dict(ctx.rule_packs),
        "stats": copy.deepcopy(ctx.stats),
        "review_reasons": list(ctx.review_reasons),
        "degraded": ctx.degraded,
    }


def rule_outputs_keep(ctx: JobContext, stage: Stage) -> None:
    """After the plan stage of a job that has questions for the model (a second phase follows), keep the rule
    outputs with the job's artifacts."""
    if stage.name == RESUMES_AFTER and ctx.plan is not None and ctx.plan.asks_model:
        ctx.artifacts[RULE_OUTPUTS] = rule_outputs(ctx)


def rule_outputs_restore(ctx: JobContext, outputs: Mapping[str, Any]) -> None:
    """Put stored rule outputs back on the context, as the stages up to `plan` left them (and keep them with the
    job's artifacts, for a later re-run of its llm phase)."""
    ctx.findings = copy.deepcopy(outputs["findings"])
    ctx.gate = GateDecision.from_dict(outputs["gate"])
    ctx.plan = LLMPlan.from_record(outputs["plan"])
    ctx.rule_packs = dict(outputs["rule_packs"])
    ctx.stats = copy.deepcopy(outputs["stats"])
    ctx.review_reasons = list(outputs["review_reasons"])
    ctx.degraded = bool(outputs["degraded"])
    ctx.artifacts[RULE_OUTPUTS] = outputs


@dataclass(frozen=True)
class Resume:
    """How an llm phase resumes: the stages it runs again, the outputs it restores, then the stages after plan."""

    rerun: list[Stage]
    outputs: Mapping[str, Any]
    remaining: list[Stage]


def resume_from(stages: Sequence[Stage], artifacts: Mapping[str, Any] | None) -> Resume | None:
    """How the llm phase of a job with these artifacts resumes over `stages`; None where it cannot (no stage named
    `plan`, or no rule outputs in this format stored): it runs every stage."""
    outputs = (artifacts or {}).get(RULE_OUTPUTS)
    names = [stage.name for stage in stages]
    if not isinstance(outputs, Mapping) or outputs.get("format") != RULE_OUTPUTS_FORMAT or RESUMES_AFTER not in names:
        return None
    after = names.index(RESUMES_AFTER) + 1
    rerun = [stage for stage in stages[:after] if stage.name in RERUN_BEFORE_RESUMING]
    return Resume(rerun=rerun, outputs=outputs, remaining=list(stages[after:]))
