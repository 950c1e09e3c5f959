"""The desks: what each document kind does in the shared pipeline, found by kind here and nowhere else.

A desk serves one kind of user: the hotline desk (`contracts.hotline`, tickets, for dispatchers) and the legal desk
(`contracts.legal`, contracts, for legal teams). The shared stages ask the document's desk what its rules stage
runs, what the cascade may ask the model, how its findings merge into a summary and a suggested response, and why
it goes to review; they branch on no kind themselves. Desks never import each other, and the shared pipeline
imports none of them: it finds them by name through `desk_for` (both held by import-linter contracts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, Protocol

from django.utils.module_loading import import_string

from contracts.cascade import CascadeSettings, LLMPlan, Question
from contracts.findings import Finding
from inference.answers import LLMTaskResult
from inference.client import LLMClient
from rules.normalize import NormalizedText

if TYPE_CHECKING:  # the models import nothing of the desks; only the hook's annotation names one
    from contracts.models import Result

# Document kind -> its desk class, imported when first asked for (so no shared module imports a desk).
DESKS: Mapping[str, str] = {
    "ticket": "contracts.hotline.desk.HotlineDesk",
    "contract": "contracts.legal.desk.LegalDesk",
}


@dataclass(frozen=True)
class RuleOutput:
    """What a desk's rules found in one document: its findings and the rule-pack versions that found them."""

    findings: list[Finding]
    packs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelAnswer:
    """One of a desk's questions answered by the model: the task's record and the grounded findings it adds."""

    result: LLMTaskResult
    findings: list[Finding] = field(default_factory=list)


class Desk(Protocol):
    """What the shared pipeline asks of a document kind's desk."""

    @property
    def kind(self) -> Literal["ticket", "contract"]:
        """The document kind; also the safety gate's policy for its input and the drafting prompt's kind."""
        ...

    @property
    def conflict_kinds(self) -> Mapping[str, bool]:
        """Finding kinds on which rules and model can disagree -> whether the kind holds one answer per document
        (a ticket's category: two different answers are a disagreement) or one per label (clause types)."""
        ...

    def rule_findings(self, normalized: NormalizedText, *, organisation: str) -> RuleOutput:
        """The deterministic findings of this kind (entities and personal data are the shared stage's)."""
        ...

    def stored_findings(self, document: Any, normalized: NormalizedText) -> list[Finding]:
        """Findings that compare the stored document (a `contracts.models.Document`, named loosely: the legal desk
        imports no model module, which registers the hotline desk's) with its organisation's history — a ticket's
        repeat case; run once in the rules phase, after the rule findings. An unstored document gets none."""
        ...

    def plan_questions(self, findings: list[Finding], knobs: CascadeSettings) -> list[tuple[Question, bool]]:
        """This kind's questions for the model, each with whether the cascade asks it."""
        ...

    def question_prompts(self, plan: LLMPlan) -> list[tuple[str, dict[str, str]]]:
        """The prompt templates (and their values) of this kind's planned questions, for the shared chunk budget."""
        ...

    def questions_ask(
        self, plan: LLMPlan, client: LLMClient, normalized: NormalizedText, *, budget: int | None
    ) -> list[ModelAnswer]:
        """Ask the model this kind's planned questions; their grounded findings."""
        ...

    def asked(self, plan: LLMPlan | None) -> Callable[[str, str], bool]:
        """Whether the model was asked about a finding (by finding kind and label)."""
        ...

    def confidence(self, findings: list[Finding]) -> dict[str, float]:
        """The confidence the result states for this kind's answer."""
        ...

    def review_reasons(self, findings: list[Finding], confidence: Mapping[str, float]) -> list[str]:
        """Reasons of this kind to send the merged findings (stating `confidence`) to a person."""
        ...

    def response_template(self, findings: list[Finding], *, source: str, organisation: Any) -> str:
        """DocGate's own outgoing text (a reply, a risk summary) when no model draft is used; `source` is the
        document's normalized text, `organisation` its Organisation."""
        ...

    def response_check(
        self, text: str, findings: list[Finding], *, source: str, organisation: Any
    ) -> list[dict[str, Any]]:
        """Why an outgoing `text` (drafted, DocGate's own or a reviewer's edit) is not fit to send as it is, each
        problem with its evidence (`code`, `message`, `evidence`, `start`, `end`); empty when it is."""
        ...

    def response_fields(self, findings: list[Finding]) -> dict[str, Any]:
        """What the suggested response carries beside its text (a ticket's routing)."""
        ...

    def draft_facts(self, findings: list[Finding]) -> str:
        """A short, trusted summary of the merged findings for the model's drafting prompt."""
        ...

    def result_stored(self, result: Result) -> None:
        """Keep what this kind derives from a document's newest result (a ticket's deadline) up to date; called
        by every writer of a result version, inside the transaction that stores it."""
        ...


@cache
def desk_for(kind: str) -> Desk:
    """The desk of a document kind; KeyError for a kind DocGate has no desk for."""
    desk: Desk = import_string(DESKS[kind])()
    return desk
