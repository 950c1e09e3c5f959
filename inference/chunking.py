"""Split long text into chunks that fit the model's context, measured with a real tokenizer.

Boundaries are tried from coarse to fine: article headings (第X条, 一、), then lines/paragraphs, then sentence
ends (。；！？), and only as a last resort a cut inside a sentence. Every chunk is a contiguous slice of the
text and remembers its offset, so spans found in a chunk map back to the full text.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

TokenCounter = Callable[[str], int]
# Chat-template turn markers and BOS that the rendered prompt does not show but the server adds, plus slack for
# tokens merging differently at the seam between instructions and document.
TEMPLATE_MARGIN_TOKENS = 32

ARTICLE_START = re.compile(
    r"^[ \t\u3000]*(?:第[一二三四五六七八九十百千零〇两\d]+[条章节]|[一二三四五六七八九十]+、)", re.MULTILINE
)
PARAGRAPH_END = re.compile(r"\n+")
SENTENCE_END = re.compile(r"[。；！？;!?]+[”’」』)）]*")


@dataclass(frozen=True)
class Chunk:
    """A slice of the full text: its text, where it starts, and its token count."""

    text: str
    offset: int
    tokens: int

    @property
    def end(self) -> int:
        return self.offset + len(self.text)

    def span_in_full_text(self, start: int, end: int) -> tuple[int, int]:
        """Shift a span found in this chunk back to the full text."""
        return start + self.offset, end + self.offset


def chunk_budget(context_window: int, prompt_overhead_tokens: int, max_output_tokens: int) -> int:
    """Tokens left for the document; raise ValueError when the prompt and output leave no room."""
    budget = context_window - prompt_overhead_tokens - max_output_tokens - TEMPLATE_MARGIN_TOKENS
    if budget < 16:
        raise ValueError(
            f"context window {context_window} leaves {budget} tokens for the document after a prompt of "
            f"{prompt_overhead_tokens} and {max_output_tokens} output tokens"
        )
    return budget


def _cuts(text: str, start: int, end: int, level: int) -> list[tuple[int, int]]:
    """Contiguous spans covering [start, end), cut at the boundaries of one level (0 article, 1 line, 2 sentence)."""
    section = text[start:end]
    if level == 0:
        points = [match.start() for match in ARTICLE_START.finditer(section) if match.start() > 0]
    else:
        pattern = PARAGRAPH_END if level == 1 else SENTENCE_END
        points = [match.end() for match in pattern.finditer(section) if 0 < match.end() < len(section)]
    bounds = [0, *points, len(section)]
    return [(start + a, start + b) for a, b in itertools.pairwise(bounds) if b > a]


class _Packer:
    """Greedy packing of consecutive spans into chunks within the budget, descending a level when a span is too big."""

    def __init__(self, text: str, budget: int, count_tokens: TokenCounter) -> None:
        self.text = text
        self.budget = budget
        self.count_tokens = count_tokens
        self.chunks: list[Chunk] = []

    def _emit(self, start: int, end: int, tokens: int) -> None:
        if self.text[start:end].strip():
            self.chunks.append(Chunk(self.text[start:end], start, tokens))

    def _hard_cut(self, start: int, end: int) -> None:
        """Cut a span with no usable boundary at the longest prefixes that fit (binary search on the count)."""
        while start < end:
            low, high = start + 1, end
            while low < high:
                middle = (low + high + 1) // 2
                if self.count_tokens(self.text[start:middle]) <= self.budget:
                    low = middle
                else:
                    high = middle - 1
            self._emit(start, low, self.count_tokens(self.text[start:low]))
            start = low

    def pack(self, start: int, end: int, level: int) -> None:
        """Pack [start, end) using boundaries of `level` and finer."""
        if level > 2:
            self._hard_cut(start, end)
            return
        current: tuple[int, int, int] | None = None  # (start, end, tokens) of the chunk being filled
        for piece_start, piece_end in _cuts(self.text, start, end, level):
            if current is not None:
                tokens = self.count_tokens(self.text[current[0] : piece_end])
                if tokens <= self.budget:
                    current = (current[0], piece_end, tokens)
                    continue
                self._emit(*current)
                current = None
            tokens = self.count_tokens(self.text[piece_start:piece_end])
            if tokens <= self.budget:
                current = (piece_start, piece_end, tokens)
            else:
                self.pack(piece_start, piece_end, level + 1)
        if current is not None:
            self._emit(*current)


def text_chunks(text: str, budget_tokens: int, count_tokens: TokenCounter) -> list[Chunk]:
    """Split `text` into contiguous chunks of at most `budget_tokens` tokens each (blank chunks left out)."""
    if budget_tokens < 1:
        raise ValueError("budget_tokens must be positive")
    whole = count_tokens(text) if text.strip() else 0
    if whole <= budget_tokens:
        return [Chunk(text, 0, whole)] if text.strip() else []
    packer = _Packer(text, budget_tokens, count_tokens)
    packer.pack(0, len(text), 0)
    return packer.chunks
