"""The questions DocGate asks the model: clause extraction, ticket classification, Cantonese rewrite, response
drafting, and the safety gate's yes/no policy check.

Each takes an LLMClient and text and returns an LLMTaskResult whose findings are grounded in that text.
LLMUnavailable and LLMRequestError propagate (the job waits for the model, bounded, then goes to review); invalid
replies are counted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from typing import Literal

from inference.answers import LLMFinding, LLMTaskResult, TaskRun, chunk_findings_merge
from inference.chunking import Chunk, chunk_budget, text_chunks
from inference.client import RETRY_NOTE, LLMClient
from inference.errors import LLMInvalidOutput
from inference.prompts import prompt_render, prompt_template
from inference.schemas import (
    CantoneseRewrite,
    ResponseDraft,
    TicketTaxonomy,
    clause_extraction_model,
    ticket_classification_model,
)

DraftKind = Literal["ticket", "contract"]
# A rewrite is about as long as its input, plus the JSON wrapper: input chunks get this share of the output budget.
REWRITE_INPUT_SHARE = 0.8
# A rewrite of a text this long or longer must share REWRITE_MIN_RATIO of it (difflib's ratio) to be one. Measured on
# the public dialect pairs, human renderings against the normalized Cantonese the model is given: none of the 213 of
# 12 characters or more falls under 0.15 (6 under 0.2); 5 of 650 fall outside the length bounds.
REWRITE_SHORT_CHARS = 12
REWRITE_MIN_RATIO = 0.15


def document_budget(client: LLMClient, task: str, max_output_tokens: int, **values: str) -> int:
    """Tokens a document may take in this task's prompt: the window minus the prompt around it, the retry
    note and the reply, all counted with the server's tokenizer."""
    overhead = client.count_tokens(prompt_render(task, "", **values).text) + client.count_tokens(RETRY_NOTE)
    return chunk_budget(client.config.context_window_tokens, overhead, max_output_tokens)


def _chunks(client: LLMClient, text: str, budget: int) -> list[Chunk]:
    return text_chunks(text, budget, client.count_tokens)


def shared_budget(client: LLMClient, prompts: Sequence[tuple[str, dict[str, str]]]) -> int:
    """One document budget for several questions about the same document: the smallest of theirs, each with the
    full reply budget. Cut with it, every question sees the same chunks, and as the prompts put the fenced chunk
    first, they begin with the same tokens: vLLM's prefix cache and llama.cpp's prompt cache read it once."""
    max_tokens = client.config.max_output_tokens
    return min(document_budget(client, task, max_tokens, **values) for task, values in prompts)


def clause_prompt_values(labels: Sequence[str]) -> dict[str, str]:
    """The clause question's values besides the document (for budgets shared with other questions)."""
    return {"labels": "\n".join(f"- {label}" for label in labels)}


def ticket_prompt_values(taxonomy: TicketTaxonomy) -> dict[str, str]:
    """The ticket question's values besides the document (for budgets shared with other questions)."""
    return {"categories": _taxonomy_outline(taxonomy)}


def clauses_extract(
    client: LLMClient,
    text: str,
    labels: Sequence[str],
    *,
    max_output_tokens: int | None = None,
    budget: int | None = None,
    chunk_wanted: Callable[[Chunk], bool] | None = None,
) -> LLMTaskResult:
    """Find clauses of the given labels in a contract, chunk by chunk (of `budget` tokens, else the question's
    own; only the chunks `chunk_wanted` accepts, when given); findings carry spans in `text`."""
    max_tokens = max_output_tokens or client.config.max_output_tokens
    label_list = clause_prompt_values(labels)["labels"]
    schema = clause_extraction_model(tuple(labels))
    run = TaskRun(client, "clauses_extract", prompt_template("clause_extraction")[1])
    own = document_budget(client, "clause_extraction", max_tokens, labels=label_list)
    chunks = [c for c in _chunks(client, text, min(budget or own, own)) if chunk_wanted is None or chunk_wanted(c)]
    for chunk in chunks:
        prompt = prompt_render("clause_extraction", chunk.text, labels=label_list)
        try:
            reply = client.chat_structured(prompt.messages, schema, max_tokens=max_tokens)
        except LLMInvalidOutput as error:
            run.invalid_record(error)
            continue
        run.reply_record(reply)
        for item in reply.parsed.findings:
            span = run.span_ground(item.evidence, chunk.text, chunk.offset)
            if span is not None:
                run.findings.append(LLMFinding("clause", item.label, text[span[0] : span[1]], *span))
    run.findings = chunk_findings_merge(run.findings)
    return run.result(chunks=len(chunks))


def _taxonomy_outline(taxonomy: TicketTaxonomy) -> str:
    """One line per level-1 name with its level-2 names (level 3 is too long for the prompt)."""
    level2: dict[str, list[str]] = {name: [] for name in taxonomy.level1_names}
    for level1, name, _ in taxonomy.paths():
        if name not in level2[level1]:
            level2[level1].append(name)
    return "\n".join(f"- {level1}: {' / '.join(names)}" for level1, names in level2.items())


def ticket_classify(
    client: LLMClient,
    text: str,
    taxonomy: TicketTaxonomy,
    *,
    max_output_tokens: int | None = None,
    budget: int | None = None,
) -> LLMTaskResult:
    """Classify a ticket into the taxonomy with an urgency level; level 2/3 outside the taxonomy are dropped and
    counted as off_taxonomy. A ticket longer than the window is classified on its first chunk (truncated)."""
    max_tokens = max_output_tokens or client.config.max_output_tokens
    outline = _taxonomy_outline(taxonomy)
    schema = ticket_classification_model(tuple(taxonomy.level1_names))
    run = TaskRun(client, "ticket_classify", prompt_template("ticket_classification")[1])
    own = document_budget(client, "ticket_classification", max_tokens, categories=outline)
    chunks = _chunks(client, text, min(budget or own, own))
    prompt = prompt_render("ticket_classification", chunks[0].text if chunks else "", categories=outline)
    if not chunks:
        return run.result(chunks=0)
    try:
        reply = client.chat_structured(prompt.messages, schema, max_tokens=max_tokens)
    except LLMInvalidOutput as error:
        run.invalid_record(error)
        return run.result(chunks=1, truncated=len(chunks) > 1)
    run.reply_record(reply)
    parsed = reply.parsed
    span = run.span_ground(parsed.evidence, chunks[0].text, chunks[0].offset)
    if span is not None:
        attributes: dict[str, str] = {}
        if taxonomy.has_path(parsed.level1, parsed.level2):
            attributes["level2"] = parsed.level2
            if taxonomy.has_path(parsed.level1, parsed.level2, parsed.level3):
                attributes["level3"] = parsed.level3
            else:
                run.off_taxonomy += 1
        else:
            run.off_taxonomy += 1
        quote = text[span[0] : span[1]]
        run.findings.append(LLMFinding("category", parsed.level1, quote, *span, attributes=attributes))
        run.findings.append(LLMFinding("urgency", parsed.urgency, quote, *span))
    return run.result(chunks=1, truncated=len(chunks) > 1)


def rewrite_keeps_the_text(source: str, rewritten: str) -> bool:
    """Whether a Cantonese rewrite still says the source: not empty, between a third and three times its length,
    and (past a short sentence, where every word may change: 佢哋喺度搞咗好耐 → 他们在这里弄了很久) sharing
    some of its characters in order. A rewrite changes function words, not what the citizen wrote about."""
    if not rewritten or not len(source) / 3 <= len(rewritten) <= 3 * len(source):
        return False
    return len(source) < REWRITE_SHORT_CHARS or SequenceMatcher(None, source, rewritten).ratio() >= REWRITE_MIN_RATIO


def cantonese_rewrite(client: LLMClient, text: str, *, max_output_tokens: int | None = None) -> LLMTaskResult:
    """Rewrite Cantonese into Standard Written Chinese chunk by chunk; a chunk whose reply is invalid is kept as
    it was (and counted), so `output_text` always covers the whole input."""
    max_tokens = max_output_tokens or client.config.max_output_tokens
    run = TaskRun(client, "cantonese_rewrite", prompt_template("cantonese_rewrite")[1])
    budget = min(document_budget(client, "cantonese_rewrite", max_tokens), int(max_tokens * REWRITE_INPUT_SHARE))
    chunks = _chunks(client, text, budget)
    pieces: list[str] = []
    cursor = 0
    for chunk in chunks:
        pieces.append(text[cursor : chunk.offset])  # blank stretches between chunks pass through
        cursor = chunk.end
        try:
            reply = client.chat_structured(
                prompt_render("cantonese_rewrite", chunk.text).messages, CantoneseRewrite, max_tokens=max_tokens
            )
        except LLMInvalidOutput as error:
            run.invalid_record(error)
            pieces.append(chunk.text)
            continue
        run.reply_record(reply)
        # Chunks end at line breaks that the model tends to drop: keep the chunk's own outer whitespace.
        body = chunk.text.strip()
        rewritten = reply.parsed.rewritten.strip()
        if not rewrite_keeps_the_text(body, rewritten):
            run.dropped_ungrounded += 1  # an empty or unrelated reply is no rewrite: the chunk stays as it was
            pieces.append(chunk.text)
            continue
        lead, trail = chunk.text[: chunk.text.index(body)], chunk.text[chunk.text.index(body) + len(body) :]
        pieces.append(lead + rewritten + trail)
    pieces.append(text[cursor:])
    return run.result(chunks=len(chunks), output_text="".join(pieces))


def response_draft(
    client: LLMClient,
    kind: DraftKind,
    text: str,
    findings_summary: str,
    *,
    max_output_tokens: int | None = None,
) -> LLMTaskResult:
    """Draft a ticket reply or a contract risk summary from the text (its first chunk when long) and a summary of
    the findings; `output_text` is the draft (None when the reply was invalid), evidence quotes are grounded."""
    if kind not in ("ticket", "contract"):
        raise ValueError(f"kind must be ticket or contract, not {kind!r}")
    task = f"response_draft_{kind}"
    max_tokens = max_output_tokens or client.config.max_output_tokens
    # The summary is part of the prompt around the document, so it counts against the window too.
    run = TaskRun(client, "response_draft", prompt_template(task)[1])
    budget = document_budget(client, task, max_tokens, findings_summary=findings_summary)
    chunks = _chunks(client, text, budget)
    first = chunks[0] if chunks else Chunk("", 0, 0)
    prompt = prompt_render(task, first.text, findings_summary=findings_summary)
    try:
        reply = client.chat_structured(prompt.messages, ResponseDraft, max_tokens=max_tokens)
    except LLMInvalidOutput as error:
        run.invalid_record(error)
        return run.result(chunks=1, truncated=len(chunks) > 1)
    run.reply_record(reply)
    for quote in reply.parsed.evidence:
        span = run.span_ground(quote, first.text, first.offset)
        if span is not None:
            run.findings.append(LLMFinding("evidence", kind, text[span[0] : span[1]], *span))
    run.findings = chunk_findings_merge(run.findings)
    return run.result(chunks=1, truncated=len(chunks) > 1, output_text=reply.parsed.draft)


def safety_risk(client: LLMClient, text: str, max_chunks: int, *, budget: int | None = None) -> float | None:
    """The model's P(yes) to the safety policy question, from the first token's log-probabilities; a long text
    is asked chunk by chunk (at most `max_chunks`) and its risk is the highest chunk's. None for empty text.

    LLMInvalidOutput when the model cannot answer yes/no (a base model); other LLMErrors propagate."""
    own = document_budget(client, "safety_check", 1)
    chunks = text_chunks(text, min(budget or own, own), client.count_tokens)[:max_chunks]
    risks = [client.yes_probability(prompt_render("safety_check", chunk.text).messages) for chunk in chunks]
    return max(risks) if risks else None
