"""Repeat complaints (重复件): a ticket's MinHash signature over character shingles, its LSH band keys, and whether
an earlier ticket is the same complaint.

Similarity is the Jaccard similarity of the two tickets' sets of character 3-grams (punctuation, spaces and the
places named dropped, digit runs folded to one `0`, so "3月5日" and "4月18日" read alike), estimated from
`NUM_PERM` MinHash values (`datasketch`, fixed seed: the same text has the same signature in every process).
Candidates are found by locality-sensitive hashing: the first `BANDS * ROWS` values are cut into `BANDS` bands
of `ROWS` values and each band hashed to one 64-bit key, so a ticket is a candidate for another when one band key
is equal; a database stores one indexed row per band (`contracts.hotline.cases`), `RepeatIndex` does the same in
memory.

The decision adds evidence to the text similarity: a place both tickets name (`rules.tickets.place_names`) and the
same caller reference. Two tickets naming different places are never a repeat, however alike their text.
The threshold is measured on rewordings of the public tickets against same-category tickets about other places
(tests/rules/test_repeat_evaluation.py; the numbers are in the README).
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from datasketch import MinHash

from rules.normalize.width import fold_text
from rules.tickets.place_names import Place, PlaceMention, place_mentions, places_differ, places_shared

SHINGLE_SIZE = 3
NUM_PERM = 64
BANDS, ROWS = 16, 3
SEED = 1
# Measured (README, "Repeat cases"): positives' text similarity is mostly above 0.6, different tickets' below 0.2.
DEFAULT_THRESHOLD = 0.35
PLACE_BONUS = 0.1  # both name one same place below the city
CALLER_BONUS = 0.1  # the same caller reference (not in the public tickets: set by reasoning, not measured)
# Punctuation, spaces and symbols carry no topic; dropping them lets "噪音，扰民" match "噪音扰民".
_NOISE = re.compile(r"[\W_]+")
_DIGITS = re.compile(r"[0-9]+")
_INT64 = struct.Struct(">q")


def shingles(text: str, sizes: tuple[int, ...] = (2,)) -> Counter[str]:
    """Character n-gram counts of the folded text without punctuation or spaces (the hotspots' topic terms,
    `rules.tickets.topics`)."""
    compact = _NOISE.sub("", fold_text(text))
    counts: Counter[str] = Counter()
    for size in sizes:
        counts.update(compact[i : i + size] for i in range(len(compact) - size + 1))
    return counts


def ticket_shingles(text: str, size: int = SHINGLE_SIZE, places: Sequence[PlaceMention] = ()) -> set[str]:
    """Character n-grams of the folded text without punctuation or spaces, digit runs folded to one `0`, and
    without the `places` mentioned (a place is evidence of its own: in a short ticket its name would otherwise
    make two complaints about one estate look alike)."""
    folded, pieces, at = fold_text(text), [], 0
    for mention in places:  # in order of their place words; a longer name may overlap the one before
        if mention.start >= at:
            pieces.append(folded[at : mention.start])
        at = max(at, mention.end)
    pieces.append(folded[at:])
    grams: set[str] = set()
    for piece in pieces:
        compact = _DIGITS.sub("0", _NOISE.sub("", piece))
        if 0 < len(compact) < size:
            grams.add(compact)
        grams.update(compact[i : i + size] for i in range(len(compact) - size + 1))
    return grams


def minhash_values(shingles: Iterable[str]) -> np.ndarray:
    """The `NUM_PERM` MinHash values (uint32) of a set of shingles; all at the maximum for an empty set."""
    sketch = MinHash(num_perm=NUM_PERM, seed=SEED)
    sketch.update_batch([s.encode() for s in shingles])
    return np.asarray(sketch.hashvalues, dtype=np.uint32)


def band_keys(values: np.ndarray) -> list[int]:
    """One signed 64-bit key per band (band number and its `ROWS` values hashed), as stored in an indexed column."""
    keys = []
    for band in range(BANDS):
        chunk = values[band * ROWS : (band + 1) * ROWS].astype(">u4").tobytes()
        digest = hashlib.blake2b(bytes([band]) + chunk, digest_size=8).digest()
        keys.append(_INT64.unpack(digest)[0])
    return keys


@dataclass(frozen=True)
class TicketSignature:
    """What is stored of a ticket to find its repeats: MinHash values, band keys, places and caller."""

    values: np.ndarray = field(compare=False)
    places: frozenset[Place] = frozenset()
    caller: str = ""  # a digest of the caller reference, "" where none was given

    @property
    def bands(self) -> list[int]:
        return band_keys(self.values)

    @property
    def empty(self) -> bool:
        """No shingles (an empty or punctuation-only text): never a repeat of anything."""
        return bool(np.all(self.values == np.uint32(0xFFFFFFFF)))

    def to_bytes(self) -> bytes:
        return self.values.astype("<u4").tobytes()

    @staticmethod
    def values_from_bytes(raw: bytes) -> np.ndarray:
        return np.frombuffer(raw, dtype="<u4").astype(np.uint32)


def caller_digest(reference: str) -> str:
    """The stored form of a caller reference (a digest: the reference may be a phone number)."""
    cleaned = _NOISE.sub("", fold_text(reference or "")).lower()
    return hashlib.sha256(cleaned.encode()).hexdigest()[:32] if cleaned else ""


def ticket_signature(text: str, caller_reference: str = "") -> TicketSignature:
    """The signature of a ticket's text (its places apart) and caller reference."""
    mentions = place_mentions(text)
    return TicketSignature(
        minhash_values(ticket_shingles(text, places=mentions)),
        frozenset(m.place for m in mentions),
        caller_digest(caller_reference),
    )


def text_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Estimated Jaccard similarity of the two tickets' shingle sets (share of equal MinHash values)."""
    return float(np.count_nonzero(a == b)) / len(a)


@dataclass(frozen=True)
class RepeatEvidence:
    """Why a ticket is (or is not) a repeat of an earlier one."""

    text: float
    shared_place: bool
    same_caller: bool
    places_differ: bool

    @property
    def score(self) -> float:
        bonus = (PLACE_BONUS if self.shared_place else 0.0) + (CALLER_BONUS if self.same_caller else 0.0)
        return round(self.text + bonus, 4)

    def is_repeat(self, threshold: float = DEFAULT_THRESHOLD) -> bool:
        """A repeat: the score reaches the threshold and the two do not name different places."""
        return not self.places_differ and self.score >= threshold

    def as_dict(self) -> dict[str, float | bool]:
        return {
            "text_similarity": round(self.text, 4),
            "shared_place": self.shared_place,
            "same_caller": self.same_caller,
            "score": self.score,
        }


def repeat_evidence(query: TicketSignature, earlier: TicketSignature) -> RepeatEvidence:
    """The evidence that `query` repeats `earlier`."""
    empty = query.empty or earlier.empty
    return RepeatEvidence(
        text=0.0 if empty else text_similarity(query.values, earlier.values),
        shared_place=places_shared(query.places, earlier.places),
        same_caller=bool(query.caller) and query.caller == earlier.caller,
        places_differ=places_differ(query.places, earlier.places),
    )


@dataclass(frozen=True)
class RepeatMatch:
    """An earlier ticket the query repeats, with the evidence."""

    ticket_id: str
    evidence: RepeatEvidence

    @property
    def score(self) -> float:
        return self.evidence.score


def best_repeats(
    query: TicketSignature,
    candidates: Iterable[tuple[str, TicketSignature]],
    threshold: float = DEFAULT_THRESHOLD,
) -> list[RepeatMatch]:
    """The candidates `query` repeats, best first (ties: in the candidates' order, which callers make stable)."""
    matches = [RepeatMatch(ticket_id, repeat_evidence(query, signature)) for ticket_id, signature in candidates]
    kept = [match for match in matches if match.evidence.is_repeat(threshold)]
    return sorted(kept, key=lambda match: -match.score)


class RepeatIndex:
    """In-memory LSH index of (id, signature) answering "which earlier tickets repeat this one?" — the same band
    keys and decision as the stored index, for analysis and evaluation without a database."""

    def __init__(self) -> None:
        self._signatures: dict[str, TicketSignature] = {}
        self._buckets: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self._signatures)

    def add(self, ticket_id: str, signature: TicketSignature) -> None:
        """Index one ticket (an id added again replaces nothing: ids are unique)."""
        if ticket_id in self._signatures:
            return
        self._signatures[ticket_id] = signature
        if not signature.empty:
            for key in signature.bands:
                self._buckets.setdefault(key, []).append(ticket_id)

    def candidates(self, signature: TicketSignature, *, exclude: str | None = None) -> list[str]:
        """Indexed tickets sharing a band key, most shared bands first (then in the order they were added)."""
        if signature.empty:
            return []
        counts: Counter[str] = Counter()
        for key in signature.bands:
            counts.update(self._buckets.get(key, ()))
        counts.pop(exclude or "", None)
        return [ticket_id for ticket_id, _ in counts.most_common()]

    def repeats(
        self, signature: TicketSignature, threshold: float = DEFAULT_THRESHOLD, *, exclude: str | None = None
    ) -> list[RepeatMatch]:
        """The indexed tickets this one repeats, best first."""
        found = self.candidates(signature, exclude=exclude)
        return best_repeats(signature, ((i, self._signatures[i]) for i in found), threshold)
