"""Grounding: an evidence quote counts only if it is really in the text; whitespace differences are forgiven."""

from __future__ import annotations

import pytest

from inference.grounding import ground

CONTRACT = "第五条 违约责任\n任何一方违约的，应向守约方支付合同总额 20% 的违约金。\n第六条 保密\n双方应保守商业秘密。"


def test_exact_quote_is_found_at_its_position() -> None:
    quote = "应向守约方支付合同总额 20% 的违约金"
    start, end = ground(quote, CONTRACT) or (0, 0)
    assert CONTRACT[start:end] == quote


def test_quote_with_different_whitespace_maps_back_to_the_original_span() -> None:
    span = ground("违约责任 任何一方违约的，应向守约方支付合同总额20%的违约金", CONTRACT)
    assert span is not None
    assert CONTRACT[span[0] : span[1]] == "违约责任\n任何一方违约的，应向守约方支付合同总额 20% 的违约金"


def test_surrounding_whitespace_of_the_quote_is_ignored() -> None:
    span = ground("  双方应保守商业秘密。\n", CONTRACT)
    assert span is not None and CONTRACT[span[0] : span[1]] == "双方应保守商业秘密。"


@pytest.mark.parametrize(
    "quote",
    ["甲方应赔偿乙方全部损失", "违约金为合同总额的 30%", "", " ", "违", "\n保\n"],
    ids=["absent-sentence", "altered-number", "empty", "blank", "one-char", "one-char-after-whitespace"],
)
def test_absent_or_too_short_quotes_are_rejected(quote: str) -> None:
    assert ground(quote, CONTRACT) is None
