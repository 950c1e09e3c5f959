"""Reply schemas for each LLM task; enums come from the live taxonomies passed in at call time."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, create_model

EVIDENCE_MAX_CHARS = 200
MAX_FINDINGS_PER_CHUNK = 8
NAME_MAX_CHARS = 30
Urgency = Literal["normal", "high", "urgent"]


class TicketTaxonomy(Protocol):
    """What the ticket task needs from a taxonomy (rules.tickets.taxonomy.Taxonomy satisfies it)."""

    @property
    def level1_names(self) -> tuple[str, ...]: ...

    def has_path(self, level1: str, level2: str | None, level3: str | None = None) -> bool: ...

    def paths(self) -> Iterator[tuple[str, str, str]]: ...


class _Strict(BaseModel):
    """Unknown keys are an invalid reply, and the JSON schema says so (additionalProperties: false)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ClauseReply(_Strict):
    """One clause the model found, with a verbatim evidence quote."""

    label: str
    evidence: str = Field(min_length=2, max_length=EVIDENCE_MAX_CHARS)


class ClauseExtraction(_Strict):
    """The clause-extraction reply for one chunk."""

    findings: list[ClauseReply] = Field(max_length=MAX_FINDINGS_PER_CHUNK)


class TicketReply(_Strict):
    """The ticket-classification reply: a taxonomy path, an urgency level and the evidence for them."""

    level1: str
    level2: str = Field(max_length=NAME_MAX_CHARS)
    level3: str = Field(max_length=NAME_MAX_CHARS)
    urgency: Urgency
    evidence: str = Field(min_length=2, max_length=EVIDENCE_MAX_CHARS)


class CantoneseRewrite(_Strict):
    """The Cantonese → Standard Written Chinese rewrite of one chunk."""

    rewritten: str


class ResponseDraft(_Strict):
    """A reply draft (ticket) or risk summary (contract), with the quotes it relies on."""

    draft: str = Field(max_length=1200)
    evidence: list[str] = Field(max_length=5)


def _enum(values: Sequence[str], what: str) -> Any:
    """A Literal type over `values` for a pydantic field; raise ValueError when empty or duplicated."""
    options = tuple(values)
    if not options or len(set(options)) != len(options):
        raise ValueError(f"{what} must be a non-empty list of distinct names")
    return Literal[options]


@lru_cache(maxsize=16)
def clause_extraction_model(labels: tuple[str, ...]) -> type[ClauseExtraction]:
    """ClauseExtraction whose `label` enum is exactly `labels` (the clause pack's live taxonomy)."""
    finding: type[ClauseReply] = create_model(
        "ClauseFindingLive", __base__=ClauseReply, label=(_enum(labels, "clause labels"), ...)
    )
    return create_model(
        "ClauseExtraction",
        __base__=ClauseExtraction,
        findings=(list[finding], Field(max_length=MAX_FINDINGS_PER_CHUNK)),  # type: ignore[valid-type]
    )


@lru_cache(maxsize=16)
def ticket_classification_model(level1_names: tuple[str, ...]) -> type[TicketReply]:
    """TicketReply whose `level1` enum is the taxonomy's level-1 names (level 2/3 checked after)."""
    return create_model(
        "TicketClassification", __base__=TicketReply, level1=(_enum(level1_names, "level-1 names"), ...)
    )
