"""Build `compat_ideographs.json` from the Unicode Character Database (run by hand when Unicode is updated).

    apt-get install unicode-data   # Debian ships the UCD under /usr/share/unicode
    python rules/normalize/data/build_compat_ideographs.py /usr/share/unicode/EquivalentUnifiedIdeograph.txt

EquivalentUnifiedIdeograph.txt maps every character of the Kangxi Radicals (U+2F00..2FDF) and CJK Radicals
Supplement (U+2E80..2EFF) blocks that has one to the unified ideograph it looks like (⼀ → 一, ⺁ → 厂). Text layers
of PDFs made by some Word and WPS exports use these radicals in place of the ideographs. The CJK Compatibility
Ideographs are not listed here: their canonical decompositions come with Python's unicodedata.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).with_name("compat_ideographs.json")


def parse(path: Path) -> dict[str, str]:
    table: dict[str, str] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        source, target = (field.strip() for field in line.split(";"))
        first, _, last = source.partition("..")
        for code in range(int(first, 16), int(last or first, 16) + 1):
            table[chr(code)] = chr(int(target, 16))
    return table


if __name__ == "__main__":
    source = Path(sys.argv[1])
    header = source.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
    document = {"source": f"Unicode Character Database, {header}", "radicals": parse(source)}
    OUT.write_text(json.dumps(document, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(document['radicals'])} radicals → {OUT}")
