"""The literal Chinese pieces a rule pack holds, read as pack_overlap reads them (shared by the pack tests)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

_REGEX_META = re.compile(r"[\\\[\](){}|*+?^$]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def pack_json(path: str | Path) -> dict:
    """A pack file as its raw JSON object."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def pack_strings(node: object) -> Iterator[str]:
    """Every string value of the pack (keys are names, not matched text)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from pack_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from pack_strings(value)


def literal_pieces(pack: dict, min_chars: int) -> set[str]:
    """The Chinese runs of at least `min_chars` characters the pack's strings hold once regex syntax is split off."""
    return {
        run
        for text in pack_strings(pack)
        for piece in _REGEX_META.split(text)
        for run in _CJK_RUN.findall(piece)
        if len(run) >= min_chars
    }
