"""Turn the log-probabilities of a reply's first token into P(yes) for a yes/no question."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

YES_TOKENS = frozenset({"yes", "y", "true", "是", "是的", "对", "有"})
NO_TOKENS = frozenset({"no", "n", "false", "否", "不", "不是", "没有", "无"})
_STRIP = " \t\r\n\"'“”‘’`*_.,:;!?。，：；！？「」『』()（）[]"


def first_token_logprobs(choice: Mapping[str, Any]) -> dict[str, float]:
    """Candidate tokens for the first generated position with their log-probabilities (best value per token).

    Reads the OpenAI chat shape (`logprobs.content[0]` with `top_logprobs` entries, used by vLLM and
    llama-cpp-python) and the legacy completion shape (`logprobs.top_logprobs[0]` as a token→logprob map).
    """
    logprobs = choice.get("logprobs") or {}
    candidates: dict[str, float] = {}

    def add(token: Any, logprob: Any) -> None:
        if isinstance(token, str) and isinstance(logprob, int | float) and math.isfinite(logprob):
            candidates[token] = max(float(logprob), candidates.get(token, -math.inf))

    content = logprobs.get("content")
    if isinstance(content, list) and content:
        first = content[0]
        add(first.get("token"), first.get("logprob"))
        for entry in first.get("top_logprobs") or []:
            add(entry.get("token"), entry.get("logprob"))
    legacy = logprobs.get("top_logprobs")
    if isinstance(legacy, list) and legacy and isinstance(legacy[0], Mapping):
        for token, logprob in legacy[0].items():
            add(token, logprob)
    return candidates


def token_polarity(token: str) -> bool | None:
    """True for a yes token, False for a no token, None for anything else (case, spaces and quotes ignored)."""
    word = token.strip(_STRIP).lower()
    if word in YES_TOKENS:
        return True
    if word in NO_TOKENS:
        return False
    return None


def yes_share(candidates: Mapping[str, float]) -> float | None:
    """P(yes) / (P(yes) + P(no)) over the candidates, or None when neither answer is among them."""
    yes = sum(math.exp(lp) for token, lp in candidates.items() if token_polarity(token) is True)
    no = sum(math.exp(lp) for token, lp in candidates.items() if token_polarity(token) is False)
    if yes + no <= 0.0:
        return None
    return yes / (yes + no)
