"""The safety gate's decision as people read it: each layer's score on its 0–1 scale with the thresholds it is
read against, and the words behind it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from contracts.gate import gate_scale

LAYERS = (
    ("rules", "rule_risk", _("Lexicon")),
    ("model", "model_risk", _("Safety model")),
    ("llm", "llm_risk", _("LLM policy check")),
)


def gate_view(gate: Mapping[str, Any] | None, organisation: str | None = None) -> dict[str, Any] | None:
    """The gate card's content for a stored decision (`ResultData.gate`), read against the organisation's
    thresholds; None where the result has none."""
    if not isinstance(gate, Mapping) or "decision" not in gate:
        return None
    scale = gate_scale(str(gate.get("kind") or ""), organisation)
    layers = []
    for key, field, name in LAYERS:
        score = gate.get(field)
        limits = scale[key]
        level = None
        if isinstance(score, int | float):
            level = "block" if score >= limits["block"] else "review" if score >= limits["review"] else "allow"
        layers.append(
            {
                "key": key,
                "name": name,
                "score": score if isinstance(score, int | float) else None,
                "percent": round(float(score) * 100) if isinstance(score, int | float) else None,
                "review_percent": round(limits["review"] * 100),
                "block_percent": round(limits["block"] * 100),
                "review": limits["review"],
                "block": limits["block"],
                "blocks_alone": limits["blocks_alone"],
                "level": level,
                "status": gate.get("llm_status") if key == "llm" else None,
                "category": gate.get("model_category") if key == "model" else None,
            }
        )
    return {
        "decision": gate.get("decision"),
        "risk": gate.get("risk"),
        "reasons": [str(r) for r in gate.get("reasons") or []],
        "layers": layers,
    }
