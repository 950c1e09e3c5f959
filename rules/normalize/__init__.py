"""Text normalization for matching: canonical form, simplified script, Mandarin wording, offset map back.

`normalize(text)` runs, in order: code-point cleanup (CRLF/CR → \\n, invisible marks dropped, odd spaces
and control characters → space, lone surrogates → U+FFFD), full-width → half-width, one form per punctuation
family (see rules.normalize.canonical), space collapsing and joining of hard-wrapped lines, OpenCC to
simplified (hk2s / tw2s / t2s chosen from the text), and — only in the clauses that read as Cantonese — a lexicon
rewrite of Cantonese wording into Mandarin. `NormalizedText.to_original(start, end)` maps a span of the result
back to the smallest covering span of what the user sent.
"""

from __future__ import annotations

from rules.normalize.dialect import cantonese_score
from rules.normalize.pipeline import NormalizedText, NormalizeReport, normalize
from rules.normalize.script import to_simplified

__all__ = ["NormalizeReport", "NormalizedText", "cantonese_score", "normalize", "to_simplified"]
