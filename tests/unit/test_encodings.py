"""Plain-text encodings: GB18030, Big5 / Big5-HKSCS and BOM-less UTF-16 told apart by a checked rule; a tie is
refused with both encodings named, never guessed."""

from __future__ import annotations

import contextlib
import json

import opencc
import pytest

from contracts.intake.encodings import commonness
from contracts.intake.extraction import ExtractionError, text_decode
from tests.shared_data import shared_file

CANTONESE = "我哋嘅屋企附近有工地，晚晚都嘈到十二點，投訴咗好多次都冇人理，麻煩你哋派人嚟睇下。"
TRADITIONAL = "本合約自雙方簽字蓋章之日起生效，乙方應於每月五日前支付租金，逾期按日支付違約金。"
# GB18030's four-byte range: characters outside GBK (Extension A 䶮, Extension B 𠀀) must come back unchanged.
RARE = "业主䶮先生反映，小区𠀀号楼电梯故障已停运三天，请物业尽快维修。"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [(CANTONESE, "big5hkscs"), (TRADITIONAL, "big5"), (TRADITIONAL, "cp950"), (RARE, "gb18030")],
    ids=["hkscs-cantonese", "big5", "cp950", "gb18030-rare"],
)
def test_legacy_encodings_are_read_exactly(text: str, encoding: str) -> None:
    decoded = text_decode(text.encode(encoding))
    assert decoded.text == text
    assert decoded.encoding == ("gb18030" if encoding == "gb18030" else "big5hkscs")
    assert 0.5 < decoded.confidence <= 1.0


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_read(codec: str) -> None:
    assert text_decode(CANTONESE.encode(codec)).text == CANTONESE, "Chinese only: no NUL byte to tell"
    mixed = "投诉编号 T-2024-001：噪音扰民。\n"
    assert text_decode(mixed.encode(codec)).encoding == codec


def test_a_reading_that_two_encodings_explain_equally_is_refused_naming_both() -> None:
    # 合同 in GB18030 (BACF CDAC) is also two level-1 Big5 characters (磁肮): a two-character file is a tie.
    with pytest.raises(ExtractionError) as refused:
        text_decode("合同".encode("gb18030"))
    assert refused.value.code == "ambiguous_encoding"
    assert "gb18030" in str(refused.value) and "big5hkscs" in str(refused.value)
    # One more sentence breaks the tie.
    assert text_decode("合同双方应当按照约定全面履行自己的义务。".encode("gb18030")).encoding == "gb18030"


def test_mis_decoded_text_scores_low() -> None:
    assert commonness(TRADITIONAL) > 0.9
    assert commonness(TRADITIONAL.encode("big5").decode("gbk", errors="replace")) < 0.5


def test_binary_bytes_are_still_refused() -> None:
    with pytest.raises(ExtractionError) as refused:
        text_decode(bytes(range(256)) * 4)
    assert refused.value.code == "binary_content"


def test_the_rule_on_every_public_text_in_both_encodings() -> None:
    """Measured: every public ticket and contract in GB18030, and in Big5-HKSCS after OpenCC s2hk where it
    encodes; none may be read in the wrong encoding, and at most 1 % refused as a tie."""
    to_traditional = opencc.OpenCC("s2hk")
    outcomes = {"right": 0, "wrong": 0, "refused": 0}
    for name in ("tickets/public.jsonl", "contracts/public.jsonl"):
        for line in shared_file(name).read_text(encoding="utf-8").splitlines():
            text = json.loads(line)["text"]
            cases = [("gb18030", text.encode("gb18030"))]
            with contextlib.suppress(UnicodeEncodeError):  # a simplified-only character has no Big5 form
                cases.append(("big5hkscs", to_traditional.convert(text).encode("big5hkscs")))
            for expected, data in cases:
                try:
                    decoded = text_decode(data)
                except ExtractionError as refused:
                    assert refused.code == "ambiguous_encoding"
                    outcomes["refused"] += 1
                    continue
                outcomes["right" if decoded.encoding == expected else "wrong"] += 1
    assert outcomes["wrong"] == 0, outcomes
    assert outcomes["refused"] <= 0.01 * outcomes["right"], outcomes
