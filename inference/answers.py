"""What an LLM task returns: grounded findings plus the counters and provenance a result must record."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from inference.client import LLMClient, StructuredReply
from inference.errors import LLMInvalidOutput
from inference.grounding import ground


@dataclass(frozen=True)
class LLMFinding:
    """One grounded finding: what (kind, label), the quote as it stands in the text and its span there."""

    kind: str  # clause | category | urgency | evidence
    label: str
    quote: str
    start: int
    end: int
    confidence: float | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LLMTaskResult:
    """The outcome of one task over one document, with everything needed to trust, count and reproduce it."""

    task: str
    findings: tuple[LLMFinding, ...]
    output_text: str | None
    dropped_ungrounded: int
    invalid_outputs: int
    off_taxonomy: int
    chunks: int
    truncated: bool
    calls: int
    prompt_version: str
    model: str
    engine: str
    llm_latency_ms: float  # HTTP time of the chat calls themselves
    wall_ms: float  # the whole task: tokenizing, chunking, prompting, parsing, grounding and the calls
    prompt_tokens: int
    completion_tokens: int

    @property
    def overhead_ratio(self) -> float | None:
        """Task wall time over raw call time (None when no call was made)."""
        return self.wall_ms / self.llm_latency_ms if self.llm_latency_ms > 0 else None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (findings as dicts)."""
        data = asdict(self)
        data["findings"] = [{**asdict(f), "attributes": dict(f.attributes)} for f in self.findings]
        return data


class TaskRun:
    """Mutable tally for one task run: calls, latency, tokens, invalid and ungrounded outputs, findings."""

    def __init__(self, client: LLMClient, task: str, prompt_version: str) -> None:
        self.client = client
        self.task = task
        self.prompt_version = prompt_version
        self.started = time.perf_counter()
        self.findings: list[LLMFinding] = []
        self.dropped_ungrounded = 0
        self.invalid_outputs = 0
        self.off_taxonomy = 0
        self.calls = 0
        self.latency_ms = 0.0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def reply_record(self, reply: StructuredReply[Any]) -> None:
        """Count a reply that validated."""
        self.calls += 1
        self.latency_ms += reply.latency_ms
        self.prompt_tokens += reply.usage.prompt_tokens
        self.completion_tokens += reply.usage.completion_tokens

    def invalid_record(self, error: LLMInvalidOutput) -> None:
        """Count a reply that failed validation twice (kept out of the findings, never guessed)."""
        self.calls += 1
        self.invalid_outputs += 1
        self.latency_ms += error.latency_ms

    def span_ground(self, quote: str, text: str, offset: int = 0) -> tuple[int, int] | None:
        """Ground `quote` in `text` and shift it by `offset`; count it as dropped when it is not there."""
        span = ground(quote, text)
        if span is None:
            self.dropped_ungrounded += 1
            return None
        return span[0] + offset, span[1] + offset

    def result(self, *, chunks: int, truncated: bool = False, output_text: str | None = None) -> LLMTaskResult:
        """Freeze the tally into an LLMTaskResult."""
        return LLMTaskResult(
            task=self.task,
            findings=tuple(self.findings),
            output_text=output_text,
            dropped_ungrounded=self.dropped_ungrounded,
            invalid_outputs=self.invalid_outputs,
            off_taxonomy=self.off_taxonomy,
            chunks=chunks,
            truncated=truncated,
            calls=self.calls,
            prompt_version=self.prompt_version,
            model=self.client.config.model,
            engine=self.client.config.engine,
            llm_latency_ms=round(self.latency_ms, 3),
            wall_ms=round((time.perf_counter() - self.started) * 1000, 3),
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
        )


def chunk_findings_merge(findings: list[LLMFinding]) -> list[LLMFinding]:
    """Drop duplicates from overlapping chunks: of findings with the same kind and label whose spans overlap,
    keep the longest (first on ties), in text order."""
    kept: list[LLMFinding] = []
    for finding in sorted(findings, key=lambda f: (f.start, -(f.end - f.start))):
        if any(
            k.kind == finding.kind and k.label == finding.label and k.start < finding.end and finding.start < k.end
            for k in kept
        ):
            continue
        kept.append(finding)
    return kept
