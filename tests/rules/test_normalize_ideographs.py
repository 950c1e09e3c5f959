"""Look-alike ideographs: Kangxi radicals, radical supplements and compatibility ideographs become the unified
ideographs they stand for, offsets kept, so clauses written with them are found."""

from __future__ import annotations

import unicodedata

from rules.clauses import clause_presence
from rules.normalize import normalize

# A PDF text layer as some exports write it: 方 乙 力 金 as Kangxi radicals (U+2F45 U+2F04 U+2F12 U+2FA6).
KANGXI = (
    "甲\u2f45与\u2f04\u2f45签订本合同。任何一\u2f45违约的，应向守约\u2f45支付违约\u2fa6。"
    "因不可抗\u2f12致使合同不能履行的，不承担责任。"
)
PLAIN = "甲方与乙方签订本合同。任何一方违约的，应向守约方支付违约金。因不可抗力致使合同不能履行的，不承担责任。"


def test_kangxi_radicals_become_the_ideographs_and_keep_every_offset() -> None:
    normalized = normalize(KANGXI)
    assert normalized.text == PLAIN
    assert normalized.report.ideographs_folded == sum(0x2F00 <= ord(c) <= 0x2FDF for c in KANGXI)
    start = PLAIN.index("违约金")
    assert normalized.to_original(start, start + 3) == (start, start + 3)


def test_every_kangxi_radical_folds_to_its_unified_ideograph() -> None:
    for code in range(0x2F00, 0x2FD6):
        radical = chr(code)
        # then simplified like any other character (⼾ → 戶 → 户)
        assert normalize(radical).text == normalize(unicodedata.normalize("NFKC", radical)).text, hex(code)
        assert not 0x2F00 <= ord(normalize(radical).text) <= 0x2FDF


def test_radical_supplement_and_compatibility_ideographs_fold() -> None:
    assert normalize("\u2e8f").text == "尣"  # CJK RADICAL LAME FOUR, by EquivalentUnifiedIdeograph
    assert normalize("\u2ecc").text == "辶"  # CJK RADICAL SIMPLIFIED WALK
    assert normalize("\uf9d1").text == "六"  # CJK COMPATIBILITY IDEOGRAPH-F9D1
    assert normalize("\uf91f").text == "兰"  # CJK COMPATIBILITY IDEOGRAPH-F91F is 蘭, then simplified
    assert normalize("\U0002f800").text == "丽"  # CJK COMPATIBILITY IDEOGRAPH-2F800 (supplementary plane)
    assert normalize("\ufa0e").text == "\ufa0e", "a unified ideograph inside the compatibility block stays"


def test_clauses_written_with_kangxi_radicals_are_found() -> None:
    plain = {label for label, finding in clause_presence(PLAIN).items() if finding is not None}
    assert {"违约金/违约责任", "不可抗力"} <= plain
    kangxi = {label for label, finding in clause_presence(normalize(KANGXI).text).items() if finding is not None}
    assert kangxi == plain
