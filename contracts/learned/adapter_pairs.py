"""An organisation's reviewed results as instruction pairs for its LLM adapter: each prompt exactly as the LLM
stage renders it (`inference.prompts`, one user turn, the document fenced), each answer the reply the reviewed
result says the model should have given, in the question's own JSON schema."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from contracts.findings import finding_list
from contracts.learned.clauses_retrain import STRATUM, _reviewed_clauses, reviewed_contracts
from contracts.learned.slice import Labelled, SliceSplit, slice_split
from contracts.learned.store import model_current_version
from contracts.learned.tickets_retrain import ticket_category_examples
from contracts.models import ReviewerExample
from contracts.tenancy.personal_data import text_masked
from inference.prompts import prompt_render
from inference.questions import clause_prompt_values, ticket_prompt_values
from rules.clauses.pack import load_pack
from rules.normalize import normalize
from rules.tickets.taxonomy import load_taxonomy

NAME = "llm_adapter"
TICKET_TASK, CLAUSE_TASK = "ticket_classification", "clause_extraction"
EVIDENCE_CHARS = 60  # a quote long enough to ground, short enough to cost few tokens
_SENTENCE_ENDS = "。！？!?\n"


@dataclass(frozen=True)
class Pair:
    """One reviewed document as an instruction pair: the stage's prompt for it, the reviewed answer, and what the
    judge scores against (`gold`: the ticket's category, or the contract's clause types)."""

    key: str
    task: str
    stratum: str
    text: str
    prompt: tuple[dict[str, str], ...]
    answer: str
    gold: tuple[str, ...]

    def jsonl(self) -> str:
        """The pair as one chat line: user turn(s), then the answer (no system turn)."""
        messages = [*self.prompt, {"role": "assistant", "content": self.answer}]
        return json.dumps({"messages": messages, "task": self.task}, ensure_ascii=False) + "\n"


def adapter_served_name(organisation_slug: str, version: str) -> str:
    """The model name the server serves an organisation's adapter version under (`--lora-modules NAME=path`)."""
    return f"{organisation_slug}-{version}"


def adapter_current_name(organisation_slug: str) -> str | None:
    """The served name of the organisation's active adapter (`manage.py train_adapter`), or None."""
    version = model_current_version(organisation_slug, NAME)
    return adapter_served_name(organisation_slug, version) if version else None


def document_cut(text: str) -> str:
    """The document as a pair asks it: normalized, cut to DOCGATE_ADAPTER_MAX_DOC_CHARS."""
    return normalize(text).text[: settings.DOCGATE_ADAPTER_MAX_DOC_CHARS]


def document_masked(text: str, data: Mapping[str, Any] | None) -> str:
    """The document with its personal data masked (the one masking policy, same length): an adapter learns the
    organisation's documents, never its people's names and numbers, which it could repeat in another answer."""
    return text_masked(text, finding_list(data or {}, "findings"))


def first_sentence(text: str) -> str:
    """A verbatim quote for a ticket's evidence: its first sentence, at most EVIDENCE_CHARS characters."""
    stripped = text.strip()
    end = min((i for i in (stripped.find(mark) for mark in _SENTENCE_ENDS) if i > 0), default=len(stripped))
    return stripped[: min(end + 1, EVIDENCE_CHARS)].strip()


def _finding(data: Mapping[str, Any] | None, kind: str) -> Mapping[str, Any]:
    findings = (data or {}).get("findings") or []
    return next((f for f in findings if isinstance(f, Mapping) and f.get("kind") == kind), {})


def ticket_answer(example: ReviewerExample, text: str) -> str:
    """The reply the reviewed ticket asks for: the settled category path, the result's urgency, a quote."""
    detail = example.detail or {}
    finding, corrected = detail.get("finding") or {}, detail.get("corrected") or {}
    level2 = corrected.get("level2", finding.get("level2")) if corrected else finding.get("level2")
    level3 = corrected.get("level3", finding.get("level3")) if corrected else finding.get("level3")
    urgency = _finding(example.reviewed_result.data, "urgency").get("label") or "normal"
    reply = {"level1": example.label, "level2": level2 or "", "level3": level3 or "", "urgency": urgency,
             "evidence": first_sentence(text)}  # fmt: skip
    return json.dumps(reply, ensure_ascii=False)


def ticket_pairs(organisation: Any) -> list[Pair]:
    """A pair per reviewed ticket (the latest approve/correct of its category)."""
    latest = ticket_category_examples(organisation)
    values = ticket_prompt_values(load_taxonomy())
    pairs = []
    for key, example in latest.items():
        text = document_cut(document_masked(example.document.text, example.reviewed_result.data))
        prompt = prompt_render(TICKET_TASK, text, **values).messages
        pairs.append(
            Pair(key, TICKET_TASK, example.label, text, prompt, ticket_answer(example, text), (example.label,))
        )
    return pairs


def clause_answer(document_text: str, text: str, findings: Iterable[Mapping[str, Any]], labels: set[str]) -> str:
    """The clause reply a reviewed contract asks for: each settled clause type whose quote lies in the cut text."""
    found, seen = [], set()
    for finding in findings:
        label, span = str(finding.get("label") or ""), finding.get("span")
        if label not in labels or label in seen or not (isinstance(span, list) and len(span) == 2):
            continue
        quote = normalize(document_text[int(span[0]) : int(span[1])]).text.strip()[:EVIDENCE_CHARS]
        if len(quote) >= 2 and quote in text:
            found.append({"label": label, "evidence": quote})
            seen.add(label)
    return json.dumps({"findings": found}, ensure_ascii=False)


def contract_pairs(organisation: Any) -> list[Pair]:
    """A pair per reviewed contract (its latest reviewed result), asked about every clause type of the pack."""
    labels = tuple(load_pack().clauses)
    values = clause_prompt_values(labels)
    pairs = []
    for key, result in reviewed_contracts(organisation).items():
        masked = document_masked(result.document.text, result.data)
        text = document_cut(masked)
        settled = _reviewed_clauses(result)
        findings = [f for f in (result.data or {}).get("findings") or [] if isinstance(f, Mapping)]
        answer = clause_answer(masked, text, findings, settled)
        prompt = prompt_render(CLAUSE_TASK, text, **values).messages
        pairs.append(Pair(key, CLAUSE_TASK, STRATUM, text, prompt, answer, tuple(sorted(settled))))
    return pairs


def pairs_split(pairs: Sequence[Pair]) -> tuple[list[Pair], list[Pair], SliceSplit]:
    """(trained on, held back, the split) by the rule every retraining uses: the same documents are held back."""
    split = slice_split([Labelled(pair.key, pair.text, pair.stratum) for pair in pairs])
    held = {item.key for item in split.held}
    return [p for p in pairs if p.key not in held], [p for p in pairs if p.key in held], split
