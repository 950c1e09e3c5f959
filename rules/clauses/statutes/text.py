"""The contract as the statutory checks read it: folded text, its sentences and its stipulated clauses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

from rules.amounts import find_amounts
from rules.clauses.matcher import STIPULATED, ClauseFinding

Span = tuple[int, int]

_SENTENCE = re.compile(r"[^。;!?\n]+")
_PART = re.compile(r"[^。;!?\n,，]+")
_TOTAL_CUE = re.compile(r"合同总价|合同总额|合同金额|合同价款|总价款|总金额|标的额|标的总额|总价|总额|合计|总计")


@dataclass(frozen=True)
class ContractText:
    """Folded contract text (offsets as in the original), its clause findings and its contract type."""

    folded: str
    clauses: tuple[ClauseFinding, ...]
    kind: str

    def stipulated(self, label: str) -> list[ClauseFinding]:
        """The findings of a clause type whose terms the contract states."""
        return [f for f in self.clauses if f.label == label and f.status == STIPULATED]

    def sentences(self, cue: re.Pattern[str]) -> Iterator[tuple[Span, str]]:
        """Each sentence (span, words) that contains cue."""
        for match in _SENTENCE.finditer(self.folded):
            if cue.search(match.group()):
                yield (match.start(), match.end()), match.group()

    def parts(self, cue: re.Pattern[str]) -> Iterator[tuple[Span, str]]:
        """Each comma-delimited part of a sentence (span, words) that contains cue."""
        for match in _PART.finditer(self.folded):
            if cue.search(match.group()):
                yield (match.start(), match.end()), match.group()

    def sentence_at(self, position: int) -> Span:
        """The span of the sentence holding a position."""
        start = max(self.folded.rfind(mark, 0, position) for mark in "。;\n") + 1
        ends = [i for mark in "。;\n" if (i := self.folded.find(mark, position)) >= 0]
        return start, min(ends) if ends else len(self.folded)

    def contract_total(self) -> tuple[Decimal, Span] | None:
        """The largest amount stated in a sentence naming the contract total, with that sentence."""
        best: tuple[Decimal, Span] | None = None
        for span, sentence in self.sentences(_TOTAL_CUE):
            for amount in find_amounts(sentence):
                if best is None or amount.value > best[0]:
                    best = (amount.value, span)
        return best
