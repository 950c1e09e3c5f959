"""A result's data, typed once: what the stages build, `result_versions` stores, and the API, webhooks and portal
send (`ResultData.as_json`). The OpenAPI schema of a result's `data` is this model's (`contracts.api.result_schema`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.findings import Finding

GATE_DECISIONS = ("allow", "review", "block")


class GateRecord(BaseModel):
    """The safety gate's decision on a text, with the scores and reasons behind it (`contracts.gate`)."""

    decision: Literal["allow", "review", "block"]
    risk: float
    rule_risk: float
    model_risk: float | None
    model_category: str | None
    model_version: str | None
    kind: str = Field(description="whose policy judged it: ticket, contract, outgoing, text")
    llm_risk: float | None
    llm_status: str = Field(description="used | off | invalid_output | unavailable")
    reasons: list[str]
    categories: dict[str, float]
    pack_version: str


class Conflict(BaseModel):
    """Where rules and model disagree: the finding kind and label, why, and what each side said."""

    kind: str
    label: str
    type: str = Field(description="llm_only | rules_negated_llm_present | category_disagrees")
    rule_labels: list[str]
    llm_span: list[int] | None = None


class ResponseProblem(BaseModel):
    """Why a suggested response is not fit to send as it is, with the words that show it (offsets in the text)."""

    code: str
    message: str
    evidence: str
    start: int | None = None
    end: int | None = None


class SuggestedResponse(BaseModel):
    """What may go out: its status after both gates, who wrote it, and a ticket's routing (null for a contract)."""

    status: Literal["ready", "pending_review", "withheld", "reviewed"]
    source: Literal["llm", "template"] | None = None
    output_gate: GateRecord | None = None
    category: str | None = None
    level2: str | None = None
    department: str | None = None
    urgency: str | None = None
    check: list[ResponseProblem] = []


class Routing(BaseModel):
    """Whether a person must look before anything goes out, and why."""

    needs_review: bool
    reasons: list[str]


class Normalization(BaseModel):
    """What normalization changed before the rules read the text (`rules.normalize`'s report)."""

    model_config = ConfigDict(extra="allow")

    original_length: int | None = None
    normalized_length: int | None = None
    script_config: str | None = Field(None, description="the OpenCC conversion chosen: t2s, tw2s or hk2s")
    cantonese_score: float | None = None
    is_cantonese: bool | None = None


class ResultData(BaseModel):
    """A result's `data`: merged findings, the gate, conflicts, confidence, the suggested response and routing;
    after a review also the rejected findings and who reviewed it."""

    model_config = ConfigDict(extra="forbid")

    # Every key but `kind` has a default, so that a version stored before a key existed still reads back.
    kind: Literal["ticket", "contract"]
    findings: list[Finding] = Field(
        default_factory=list, description="one per clause type, risk, entity group; a ticket's category and urgency"
    )
    review_reasons: list[str] = Field(default_factory=list)
    degraded: bool = Field(False, description="the LLM was unavailable: rules only")
    stats: dict[str, Any] = Field(default_factory=dict)
    normalization: Normalization | None = Field(None, description="null where the text was not normalized")
    gate: GateRecord | None = Field(None, description="the input gate (null where the gate stage did not run)")
    conflicts: list[Conflict] = Field(default_factory=list)
    confidence: dict[str, float] = Field(default_factory=dict)
    suggested_response: str | None = None
    response: SuggestedResponse | None = None
    routing: Routing | None = None
    rejected_findings: list[Finding] | None = Field(None, description="after a review")
    reviewed_by: str | None = Field(None, description="after a review")
    reviewed_at: str | None = Field(None, description="after a review, ISO 8601")

    def as_json(self) -> dict[str, Any]:
        """The JSON object stored and sent: the keys that were given (a pipeline result has no review keys)."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def stored(cls, data: dict[str, Any]) -> ResultData:
        """Read a stored result's data back (a review builds the next version from it)."""
        return cls.model_validate(data)
