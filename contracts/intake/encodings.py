"""Which encoding a plain-text upload is in: UTF-8, UTF-16 (with or without a byte-order mark), GB18030 or
Big5-HKSCS, decided by a rule that can be checked, never by a guess.

- A byte-order mark decides; valid UTF-8 is UTF-8 (multi-byte Chinese text is almost never valid UTF-8 by accident).
- NUL bytes in an even-length file, nearly all on odd (even) positions, are UTF-16-LE (-BE) without a mark;
  other NUL bytes are binary data.
- Otherwise the text is decoded as GB18030, as Big5-HKSCS (Hong Kong's Big5, a superset of Big5 and close to
  CP950) and, for an even length, as UTF-16 (Chinese alone in UTF-16 has no NUL byte). Each reading is scored by
  how common its characters are: the share of its Han characters among the level-1 (most frequent) characters of
  GB2312 (3,755 simplified) or of Big5 (5,401 traditional), with every kana, Greek, Cyrillic, box-drawing,
  private-use or replacement character counting against it. Text read in the wrong encoding turns into rare
  characters and symbols (Big5's most frequent characters sit where GB2312 keeps kana and Greek), so the right
  reading scores far higher. When the two best scores are within `AMBIGUOUS_MARGIN` of each other, the file is
  refused with both encodings named. The winner's score is the confidence kept with the reading.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

LEGACY_ENCODINGS = ("gb18030", "big5hkscs")
AMBIGUOUS_MARGIN = 0.15
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\U00020000-\U0003134f]")
# Characters that a Chinese text hardly ever holds and a mis-decoded one is full of.
_ODD = re.compile(r"[\u0370-\u04ff\u2500-\u257f\u3040-\u30ff\ue000-\uf8ff\ufffd]")


@dataclass(frozen=True)
class Decoded:
    """A decoded upload: its text, the encoding it was read in, and how sure the reading is (0..1)."""

    text: str
    encoding: str
    confidence: float


class AmbiguousEncoding(ValueError):
    """The bytes read equally well in two encodings."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} or {second}")
        self.encodings = (first, second)


def _two_byte_range(lead: Iterable[int], trail: Iterable[int], codec: str) -> frozenset[str]:
    chars = set()
    trail = list(trail)
    for high in lead:
        for low in trail:
            try:
                chars.add(bytes((high, low)).decode(codec))
            except UnicodeDecodeError:
                continue
    return frozenset(chars)


@functools.cache
def common_han() -> frozenset[str]:
    """The level-1 characters of GB2312 (rows 16–55) and of Big5 (A440–C67E): the frequent ones of each script."""
    gb2312 = _two_byte_range(range(0xB0, 0xD8), range(0xA1, 0xFF), "gb2312")
    big5 = _two_byte_range(range(0xA4, 0xC7), [*range(0x40, 0x7F), *range(0xA1, 0xFF)], "big5")
    return frozenset(char for char in gb2312 | big5 if _HAN.match(char))


def commonness(text: str) -> float:
    """The share of the text's Han characters that are common, less its odd characters, over both (0..1)."""
    han = _HAN.findall(text)
    odd = len(_ODD.findall(text))
    if not han and not odd:
        return 0.0
    common = common_han()
    usual = sum(char in common for char in han)
    return max(0.0, (usual - odd) / (len(han) + odd))


def utf16_without_bom(data: bytes) -> str | None:
    """The UTF-16 codec a BOM-less file is in, from where its NUL bytes fall; None when it is not UTF-16."""
    if len(data) % 2:
        return None
    odd = data[1::2].count(0)
    even = data[0::2].count(0)
    if odd >= 0.9 * (odd + even):
        return "utf-16-le"
    if even >= 0.9 * (odd + even):
        return "utf-16-be"
    return None


def legacy_decode(data: bytes) -> Decoded | None:
    """Read bytes that are not UTF-8 as GB18030, Big5-HKSCS or UTF-16 by the commonness rule; None when none
    decodes.

    Raises AmbiguousEncoding when both readings are about as plausible."""
    readings = []
    # UTF-16 of Chinese alone has no NUL byte to give it away, so it competes as a reading too.
    for encoding in (*LEGACY_ENCODINGS, *(("utf-16-le", "utf-16-be") if len(data) % 2 == 0 else ())):
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        readings.append((commonness(text), encoding, text))
    if not readings:
        return None
    readings.sort(reverse=True)
    score, encoding, text = readings[0]
    if len(readings) > 1 and score - readings[1][0] < AMBIGUOUS_MARGIN:
        raise AmbiguousEncoding(encoding, readings[1][1])
    return Decoded(text, encoding, round(score, 3))
