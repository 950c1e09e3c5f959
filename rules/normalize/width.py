"""The one width fold: full-width ASCII variants (！ … ～, Ａ, ９) and the ideographic space onto ASCII.

Every fold here is one character to one character, so a folded text keeps every offset of the text it came from.
Matchers fold both their patterns and the text they search, raw or normalized alike:
- `width_fold`: all full-width ASCII variants, the ideographic space and curly quotes (clause structure, where
  punctuation such as （一） and ： matters to headings);
- `fold_text`: full-width letters and digits and the ideographic space only, then lower case (term matching for
  tickets and safety: full-width punctuation is the normal form in Chinese text and no term contains it).
The normalizer's own step (`rules.normalize.canonical`) starts from the same `FULLWIDTH_ASCII` table and keeps
Chinese punctuation as Chinese punctuation.
"""

from __future__ import annotations

import re

import numpy as np

# ！ (U+FF01) … ～ (U+FF5E) are ! … ~ shifted by 0xFEE0.
FULLWIDTH_ASCII: dict[int, int] = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
IDEOGRAPHIC_SPACE: dict[int, int] = {0x3000: 0x20}
CURLY_QUOTES: dict[int, int] = {ord("“"): ord('"'), ord("”"): ord('"'), ord("‘"): ord("'"), ord("’"): ord("'")}


class OneToOneFold:
    """A code-point table applied in one vectorised gather over UTF-16 code units, skipped for texts with nothing
    to fold (one regex search): a single full-width digit costs one pass in C, never a Python loop."""

    def __init__(self, table: dict[int, int]) -> None:
        self.table = table
        self.foldable = re.compile("[" + "".join(re.escape(chr(code)) for code in table) + "]")
        # Surrogates map to themselves, so characters outside the BMP pass through untouched.
        self.units = np.arange(0x10000, dtype=np.uint16)
        self.units[list(table)] = list(table.values())

    def __call__(self, text: str) -> str:
        if self.foldable.search(text) is None:
            return text
        return self.gather(text)

    def gather(self, text: str) -> str:
        """Fold `text` without first looking for something to fold (for callers that already know)."""
        try:
            units = np.frombuffer(text.encode("utf-16-le"), dtype=np.uint16)
        except UnicodeEncodeError:  # a lone surrogate cannot be encoded; fold it the slow way
            return text.translate(self.table)
        return self.units[units].tobytes().decode("utf-16-le")


width_fold = OneToOneFold(FULLWIDTH_ASCII | IDEOGRAPHIC_SPACE | CURLY_QUOTES)
_alnum_fold = OneToOneFold(
    {code: ascii for code, ascii in FULLWIDTH_ASCII.items() if chr(ascii).isalnum()} | IDEOGRAPHIC_SPACE
)
_UPPER_ASCII_TABLE = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


def fold_text(text: str) -> str:
    """Full-width letters and digits to ASCII, lower case; same length as the input, so spans map one to one."""
    text = _alnum_fold(text)
    lowered = text.lower()
    # A few letters lower-case to two characters (İ); then only ASCII is lowered, to keep offsets valid.
    return lowered if len(lowered) == len(text) else text.translate(_UPPER_ASCII_TABLE)
