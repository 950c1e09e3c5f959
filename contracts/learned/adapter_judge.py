"""Judge an organisation's adapter against the base model on its held-back slice, through the real server: the
LLM-merged ticket category (the model's grounded answer, else the rules') and the LLM-merged clause types (the
rules' plus the model's grounded ones), scored against the reviewed results. Bounded: at most
DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS held-back documents, replies cut at DOCGATE_ADAPTER_JUDGE_MAX_TOKENS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

from contracts.learned.adapter_pairs import CLAUSE_TASK, TICKET_TASK, Pair
from contracts.learned.clauses import clause_model_current
from contracts.learned.slice import SliceSplit
from contracts.learned.tickets import classifier_current
from contracts.learned.versions import PRIMARY, slice_verdict
from inference.client import LLMClient
from inference.errors import LLMUnavailable
from inference.questions import clauses_extract, ticket_classify
from rules.clauses import clause_presence
from rules.clauses.pack import load_pack
from rules.evaluation.activation import Verdict
from rules.evaluation.common import LabelCounts, classification_report, per_label_report
from rules.tickets.combine import classify_tickets
from rules.tickets.taxonomy import load_taxonomy

REPORTS = {TICKET_TASK: "tickets", CLAUSE_TASK: "clauses"}


def judge_sample(held: Sequence[Pair], cap: int) -> list[Pair]:
    """At most `cap` held-back pairs, the tasks taken in turn (a stable order: the slice's)."""
    queues = [[p for p in held if p.task == task] for task in REPORTS]
    sample: list[Pair] = []
    while len(sample) < cap and any(queues):
        for queue in queues:
            if queue and len(sample) < cap:
                sample.append(queue.pop(0))
    return sample


def _ticket_labels(client: LLMClient, pairs: Sequence[Pair], rules: Sequence[str | None]) -> list[str | None]:
    taxonomy, max_tokens = load_taxonomy(), settings.DOCGATE_ADAPTER_JUDGE_MAX_TOKENS
    merged = []
    for pair, rule in zip(pairs, rules, strict=True):
        result = ticket_classify(client, pair.text, taxonomy, max_output_tokens=max_tokens)
        model = next((f.label for f in result.findings if f.kind == "category"), None)
        merged.append(model or rule)
    return merged


def _clause_report(client: LLMClient, pairs: Sequence[Pair], organisation_slug: str) -> dict[str, Any]:
    labels, model = tuple(load_pack().clauses), clause_model_current(organisation_slug)
    counts: dict[str, LabelCounts] = {}
    for pair in pairs:
        result = clauses_extract(client, pair.text, labels, max_output_tokens=settings.DOCGATE_ADAPTER_JUDGE_MAX_TOKENS)
        rules = {label for label, found in clause_presence(pair.text, model=model).items() if found is not None}
        predicted, gold = rules | {f.label for f in result.findings if f.kind == "clause"}, set(pair.gold)
        for label in predicted | gold:
            entry = counts.setdefault(label, LabelCounts())
            if label in predicted and label in gold:
                entry.tp += 1
            elif label in predicted:
                entry.fp += 1
            else:
                entry.fn += 1
    return {"n": len(pairs), **per_label_report(counts)}


def _mean(scores: dict[str, float]) -> float:
    return round(sum(scores.values()) / len(scores), 4) if scores else 0.0


def adapter_slice_judge(
    client: LLMClient, served: str, held: Sequence[Pair], split: SliceSplit, organisation_slug: str
) -> tuple[Verdict, dict[str, Any]]:
    """Score base and adapter on the capped slice; activate only if no task is worse (by the retrain verdict) and
    one is better. Raise LLMUnavailable when the server answered for the adapter with the base model."""
    asked = judge_sample(held, settings.DOCGATE_ADAPTER_JUDGE_MAX_PROMPTS)
    tickets = [p for p in asked if p.task == TICKET_TASK]
    contracts = [p for p in asked if p.task == CLAUSE_TASK]
    rules = [c.label for c in classify_tickets([p.text for p in tickets], classifier_current(organisation_slug))]
    reports: dict[str, dict[str, Any]] = {"current": {}, "candidate": {}}
    for side, asking in (("current", client.for_adapter(None)), ("candidate", client.for_adapter(served))):
        if tickets:
            gold = [p.gold[0] for p in tickets]
            reports[side]["tickets"] = classification_report(gold, _ticket_labels(asking, tickets, rules))
        if contracts:
            reports[side]["clauses"] = _clause_report(asking, contracts, organisation_slug)
    if not client.adapters.usable(served):
        raise LLMUnavailable(f"the server does not serve adapter {served}: the base model answered for it")
    verdicts = {
        kind: slice_verdict(reports["current"][kind], reports["candidate"][kind]) for kind in reports["candidate"]
    }
    before = {kind: float(reports["current"][kind][PRIMARY]) for kind in verdicts}
    after = {kind: float(reports["candidate"][kind][PRIMARY]) for kind in verdicts}
    better = [kind for kind in verdicts if after[kind] > before[kind]]
    worse = [f"{kind}: {v.reason}" for kind, v in verdicts.items() if not v.activate]
    if not verdicts:
        reason = "not activated: nothing reviewed was held back to judge it on"
    elif worse:
        reason = "not activated against the base model; " + "; ".join(worse)
    elif not better:
        reason = f"not activated: no better than the base model ({PRIMARY} {after} vs {before})"
    else:
        reason = f"activated: {PRIMARY} better on {', '.join(better)} ({after} vs base {before}), none worse"
    verdict = Verdict(bool(verdicts) and not worse and bool(better), reason, PRIMARY, _mean(before), _mean(after))
    statement = {**split.statement(), "judged": len(asked), "judged_per_task": {
        REPORTS[task]: sum(p.task == task for p in asked) for task in REPORTS}}  # fmt: skip
    metrics = {"primary": PRIMARY, "current_version": "base", **reports, "slice": statement}
    return verdict, metrics
