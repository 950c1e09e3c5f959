"""The compiled kernels (rules/normalize/kernels.c) give exactly what the Python code they replace gives: the same
text, step maps, report and original spans. Skipped where the kernels are not built (`make kernels`), except
with CI=true, where that is a failure."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType, SimpleNamespace
from typing import cast

import pytest
from hypothesis import example, given, settings

from rules.evaluation.common import jsonl_rows
from rules.normalize import compiled, normalize
from rules.normalize.canonical import _keeps_break, whitespace_edits
from rules.normalize.dialect import _disjoint_edits, _keys_at, _segment, load_lexicon
from rules.normalize.offsets import apply_edits, apply_edits_python
from rules.normalize.punctuation import punctuation_edits, punctuation_step
from rules.normalize.script import simplified_step
from tests.benchmarks.normalize_digest import digest, inputs
from tests.conftest import IN_CI
from tests.rules.test_normalize_fast_path import texts
from tests.shared_data import shared_file


@pytest.fixture(scope="module")
def kernels() -> ModuleType:
    if compiled.kernels is None:
        message = "the normalizer's compiled kernels are not built (make kernels)"
        if IN_CI:
            pytest.fail(f"{message} — with CI=true a missing build is a failure", pytrace=False)
        pytest.skip(message)
    return compiled.kernels


@contextmanager
def python_only() -> Iterator[None]:
    """Run the normalizer's Python code, as where the kernels are not built."""
    saved = compiled.kernels
    compiled.kernels = None
    try:
        yield
    finally:
        compiled.kernels = saved


def outcome(text: str) -> tuple[object, ...]:
    """Everything normalize() returns for `text`: text, step maps, report, original span of each character."""
    result = normalize(text)
    steps = [(s.new_starts, s.new_ends, s.old_starts, s.old_ends, s.old_length, s.new_length) for s in result.steps]
    spans = [result.to_original(position, position + 1) for position in range(len(result.text))]
    return result.text, steps, result.report.as_dict(), spans


def test_kernels_give_the_python_digest_over_the_corpora(kernels: ModuleType) -> None:
    texts = inputs()  # the bench's corpora, Cantonese sentences, mixed texts and 7,000 random ones
    compiled_digest = digest(texts)
    with python_only():
        assert digest(texts) == compiled_digest


@settings(max_examples=300, deadline=None)
@given(texts)
@example('他说"你好"\n"再见"，「好」"好" "a"')  # the quote state: reset by a line break, kept by a plain quote
@example("(1)甲方（乙方)丙(abc) (x)好（" + "a" * 81 + ")")  # parenthesis pairs of both kinds, one too long
@example("好..好...好.. .好. a.b…⋯……。。。。1，200，3．5")  # dot runs, ellipses, marks inside numbers
@example(" 甲 \n乙\n\n丙 \t\n\n\n丁。\nA\nb ")  # every kind of whitespace run
@example("abc\u4e00")  # a deletion can leave a narrower string
def test_kernels_match_python(kernels: ModuleType, text: str) -> None:
    with python_only():
        expected = outcome(text)
    assert outcome(text) == expected


@given(texts)
@settings(max_examples=200, deadline=None)
def test_each_kernel_matches_its_reference(kernels: ModuleType, text: str) -> None:
    folded, count, _ = kernels.punctuate(text)
    edits = punctuation_edits(text)
    assert (folded, count) == (apply_edits_python(text, edits)[0], len(edits))
    assert punctuation_step(text)[0] == folded
    counts: dict[str, int] = {}
    compiled_edits = whitespace_edits(text, counts)
    python_counts: dict[str, int] = {}
    with python_only():
        assert compiled_edits == whitespace_edits(text, python_counts)
    assert counts == python_counts
    assert kernels.whitespace(text, _keeps_break)[0] == compiled_edits


def test_apply_edits_matches_python_and_leaves_canonical_strings(kernels: ModuleType) -> None:
    cases = [
        ("abc\u4e00d", [(3, 4, "")]),  # the only wide character deleted: an ASCII string again
        ("abc", [(0, 1, "\U0002f800"), (2, 3, "甲乙")]),  # a replacement wider than the text
        ("用紧喺度", [(0, 2, "在用"), (2, 4, "在")]),
        ("", []),
    ]
    for text, edits in cases:
        for group in (False, True):
            new_text, step = apply_edits(text, edits, group_multichar=group)
            expected_text, expected_step = apply_edits_python(text, edits, group_multichar=group)
            assert new_text == expected_text
            assert new_text.isascii() == expected_text.isascii()
            assert step == expected_step
    # edits the kernel refuses (overlapping) go to the Python code
    assert apply_edits("abcd", [(0, 2, "x"), (1, 3, "y")]) == apply_edits_python("abcd", [(0, 2, "x"), (1, 3, "y")])


def test_a_build_of_another_source_is_refused(caplog: pytest.LogCaptureFixture) -> None:
    current = hashlib.sha256(compiled.SOURCE.read_bytes()).hexdigest()
    stale = cast(ModuleType, SimpleNamespace(KERNELS_VERSION=compiled.KERNELS_VERSION, SOURCE_SHA256="0" * 64))
    assert compiled.kernels_checked(stale) is None
    assert "built from another kernels.c" in caplog.text
    other_version = cast(ModuleType, SimpleNamespace(KERNELS_VERSION=-1, SOURCE_SHA256=current))
    assert compiled.kernels_checked(other_version) is None
    fresh = cast(ModuleType, SimpleNamespace(KERNELS_VERSION=compiled.KERNELS_VERSION, SOURCE_SHA256=current))
    assert compiled.kernels_checked(fresh) is fresh


def test_the_compiled_key_choice_matches_segment_wherever_keys_overlap(kernels: ModuleType) -> None:
    """Every Cantonese sentence of the dialect pairs, every lexicon key run into the next one (overlaps and context
    checks), read as one region: kernels.segment chooses what _segment chooses."""
    lexicon = load_lexicon()
    keys = lexicon.index.terms
    sentences = [row["source"] for row in jsonl_rows(shared_file("dialect/public.jsonl"))]
    texts = sentences + ["".join(keys[i : i + 3]) for i in range(0, len(keys), 3)]
    overlapping = 0
    for text in texts:
        text = simplified_step(text, cantonese=True)[0]
        occurrences = lexicon.index.occurrences(text)
        if not occurrences:
            continue
        expected = _segment(text, _keys_at(text, [(0, len(text))], lexicon, occurrences), lexicon)
        assert kernels.segment(text, occurrences, lexicon.unconditional, lexicon.contexts) == expected, text
        overlapping += _disjoint_edits(text, occurrences, lexicon) is None
    assert overlapping >= 100
    with pytest.raises(ValueError):
        kernels.segment("喺度", [(0, 0, 5)], lexicon.unconditional, lexicon.contexts)  # outside the text
