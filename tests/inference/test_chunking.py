"""Chunking with a fake tokenizer (one token per character): boundaries, budgets, offsets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inference.chunking import TEMPLATE_MARGIN_TOKENS, Chunk, chunk_budget, text_chunks


def chars(text: str) -> int:
    return len(text)


ARTICLES = [
    "第一条 合同标的\n甲方向乙方采购办公设备一批。\n",
    "第二条 付款\n甲方应于验收合格后三十日内付款。\n",
    "第三条 保密\n双方应对合作中知悉的商业秘密承担保密义务。\n",
]


def assert_chunks_slice_the_text(chunks: list[Chunk], text: str, budget: int) -> None:
    previous_end = 0
    for chunk in chunks:
        assert text[chunk.offset : chunk.end] == chunk.text
        assert chunk.tokens == len(chunk.text) <= budget
        assert chunk.offset >= previous_end and not text[previous_end : chunk.offset].strip()
        previous_end = chunk.end
    assert not text[previous_end:].strip()


def test_short_text_is_one_chunk_at_offset_zero() -> None:
    assert text_chunks("第一条 保密", 100, chars) == [Chunk("第一条 保密", 0, 6)]


def test_blank_text_has_no_chunks() -> None:
    assert text_chunks(" \n ", 100, chars) == []


def test_chunks_break_at_article_headings() -> None:
    text = "".join(ARTICLES)
    budget = len(ARTICLES[0]) + len(ARTICLES[1])
    chunks = text_chunks(text, budget, chars)
    assert [c.text for c in chunks] == [ARTICLES[0] + ARTICLES[1], ARTICLES[2]]
    assert chunks[1].offset == text.index("第三条")


def test_numbered_headings_are_article_boundaries_too() -> None:
    text = "一、总则\n本合同适用于设备采购。\n二、价格\n总价为人民币十万元。\n"
    chunks = text_chunks(text, 20, chars)
    assert [c.text for c in chunks] == ["一、总则\n本合同适用于设备采购。\n", "二、价格\n总价为人民币十万元。\n"]


def test_an_article_too_long_for_the_budget_breaks_at_sentence_ends() -> None:
    article = (
        "第九条 违约\n逾期付款的，每日支付万分之五违约金；逾期交货的，每日支付万分之五违约金。"
        "超过三十日的，守约方可以解除合同！"
    )
    chunks = text_chunks(article, 30, chars)
    assert len(chunks) > 1
    assert all(c.text.endswith(("；", "。", "！", "\n")) for c in chunks)
    assert_chunks_slice_the_text(chunks, article, 30)


def test_a_sentence_longer_than_the_budget_is_cut_inside() -> None:
    sentence = "甲" * 95
    chunks = text_chunks(sentence, 30, chars)
    assert [len(c.text) for c in chunks] == [30, 30, 30, 5]
    assert_chunks_slice_the_text(chunks, sentence, 30)


def test_span_in_a_chunk_shifts_back_to_the_full_text() -> None:
    text = "".join(ARTICLES)
    chunk = next(c for c in text_chunks(text, len(ARTICLES[0]) + 2, chars) if "商业秘密" in c.text)
    assert chunk.offset > 0
    local = chunk.text.index("商业秘密")
    start, end = chunk.span_in_full_text(local, local + 4)
    assert text[start:end] == "商业秘密"


def test_budget_subtracts_prompt_output_and_template_margin() -> None:
    assert chunk_budget(2048, 500, 128) == 2048 - 500 - 128 - TEMPLATE_MARGIN_TOKENS
    with pytest.raises(ValueError, match="leaves"):
        chunk_budget(600, 500, 128)


@given(
    st.lists(
        st.sampled_from(["第十条 ", "一、", "甲方", "违约金", "。", "；", "\n", "\n\n", " ", "x" * 7]),
        max_size=80,
    ),
    st.integers(min_value=5, max_value=40),
)
def test_any_text_chunks_into_in_budget_slices_that_cover_it(parts: list[str], budget: int) -> None:
    text = "".join(parts)
    assert_chunks_slice_the_text(text_chunks(text, budget, chars), text, budget)
