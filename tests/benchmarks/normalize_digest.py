"""One SHA-256 over everything normalize() returns for a fixed set of inputs: a speed change must leave it as it was.

    python -m tests.benchmarks.normalize_digest          # prints the digest and the number of inputs

The inputs are the bench's corpora (tickets, Cantonese rows, contracts, OpenCC cases), the unlabelled contracts,
every sentence of the Cantonese rows alone, mixed texts (a ticket's sentences with Cantonese ones between them) and
seeded random texts from an alphabet of the characters each step works on. Hashed per input: the text, every
step map's arrays, the report, and the original span of every normalized character.
"""

from __future__ import annotations

import hashlib
import json
import random
import re

from rules.evaluation.common import jsonl_rows
from rules.normalize import normalize
from tests.shared_data import shared_file

_SENTENCE = re.compile("[^。！？\n]*[。！？\n]?")
RANDOM_TEXTS = 7_000
# Characters each step works on: folds, radicals and compatibility ideographs, traditional characters, Cantonese
# markers and keys, whitespace, punctuation, digits, plain Mandarin.
_ALPHABET = [
    *"ＡＢ１２３！＂，．：；？＿\u3000\u00a0\u200b\ufeff\r\n\t  ⼀⽅\uf900\uf91f\U0002f800",
    *"兩雙這個們為說話銀行問題關係裡著綫衞麵佢哋唔係喺嘅咗點解依家緊冇啲嗰乜嘢畀攞睇嚟咁系统关系",
    *",.;:?!()\"'，。、；：？！（）“”「」『』《》…1234567890abc",
    *"甲方乙方第一条租金合同承租方应当支付费用我社保卡在深圳办的现在广州用为什么扣了两单钱",
    *["而家", "得閒", "得闲", "聽日", "听日", "屋企", "鍾意", "钟意", "琴日", "边度", "邊個", "点样", "点解"],
    *["而", "得"],
    *["用紧", "喺度", "係咪", "唔該", "冇問題", "佢哋", "嘅", "咗", "𠮶", "去街市", "啲", "陈啲明", "“咁”", "《嘅》"],
    "\r\n",
    "1，200",
    "。。。",
    "\ud800",
]


def inputs() -> list[str]:
    """Every input, in a fixed order."""
    tickets = [row["text"] for row in jsonl_rows(shared_file("tickets/public.jsonl"))]
    dialect = [row["source"] for row in jsonl_rows(shared_file("dialect/public.jsonl"))]
    texts = tickets + dialect
    texts += [row["text"] for row in jsonl_rows(shared_file("contracts/public.jsonl"))]
    texts += [row["input"] for row in jsonl_rows(shared_file("normalize/opencc_to_simplified.jsonl"))]
    texts += [row["text"] for row in jsonl_rows(shared_file("train/contracts_unlabeled.jsonl"))]
    sentences = [match.group() for row in dialect for match in _SENTENCE.finditer(row) if match.group()]
    texts += sentences
    generator = random.Random(28)
    for ticket in tickets[:400]:  # mixed: Mandarin sentences with Cantonese ones between them
        parts = [match.group() for match in _SENTENCE.finditer(ticket) if match.group()]
        for _ in range(2):
            parts.insert(generator.randrange(len(parts) + 1), generator.choice(sentences))
        texts.append("".join(parts))
    for _ in range(RANDOM_TEXTS):
        texts.append("".join(generator.choices(_ALPHABET, k=generator.randrange(0, 160))))
    return texts


def digest(texts: list[str]) -> str:
    """SHA-256 of each input's normalized text, step maps, report and per-character original spans."""
    hasher = hashlib.sha256()
    for text in texts:
        result = normalize(text)
        hasher.update(result.text.encode("utf-8", "surrogatepass"))
        for step in result.steps:
            hasher.update(repr((step.new_starts, step.new_ends, step.old_starts, step.old_ends)).encode())
            hasher.update(repr((step.old_length, step.new_length)).encode())
        hasher.update(json.dumps(result.report.as_dict(), sort_keys=True).encode())
        if result.steps:  # without a map every span maps to itself
            spans = [result.to_original(position, position + 1) for position in range(len(result.text))]
            hasher.update(repr(spans).encode())
    return hasher.hexdigest()


def main() -> None:
    """Print the digest of every input."""
    texts = inputs()
    print(json.dumps({"inputs": len(texts), "sha256": digest(texts)}))


if __name__ == "__main__":
    main()
