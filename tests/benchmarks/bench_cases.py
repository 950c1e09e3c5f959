"""Repeat-case look-up over a large history: candidate look-up latency with 1,000,000 stored ticket signatures.

Run: `python -m tests.benchmarks.bench_cases` (throw-away SQLite; `BENCH_DATABASE_URL=postgres://…/<empty database>`
to measure PostgreSQL; `BENCH_CASES_TICKETS` stored tickets, 1,000,000 by default; `BENCH_CASES_REUSE=1` times an
earlier run's history at BENCH_DATABASE_URL again without loading it; one JSON object).

The history is bulk-loaded, not run through the pipeline: one organisation's tickets spread over the last
`HISTORY_DAYS` days (so the 30-day window holds about a twelfth of them), each a stored document with its signature
and its 16 band rows. Signatures are made from the public tickets' real MinHash values: each synthetic ticket is one
public ticket with most of its values replaced by random ones (an unrelated ticket that shares a little vocabulary)
or, for `NEAR_SHARE` of them, only a few replaced (a repeat of it), so band keys collide as they do in real text,
in clusters. On PostgreSQL the band rows are copied in with their indexes dropped and rebuilt afterwards and
foreign-key triggers off for the load (`session_replication_role = replica`: the rows are consistent by
construction), as any bulk load is done. Queries are rewordings of public tickets (tests/rules/repeat_evaluation.py)
looked up with DocGate's own `candidate_ids` (the indexed GROUP BY over band rows) and `repeats_find` (candidates,
their stored signatures, the decision). Baseline, in the same run: scoring every signature of the window, which
is what a look-up without the band index has to do.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import time
import uuid
from datetime import timedelta
from typing import Any

import numpy as np

from tests.benchmarks.django_bench import django_bench_setup
from tests.shared_data import shared_file

TICKETS = int(os.environ.get("BENCH_CASES_TICKETS", "1000000"))
HISTORY_DAYS = 365
NEAR_SHARE = 0.05  # synthetic tickets that repeat their public ticket (a few values changed)
HOT_CLUSTER = min(2000, TICKETS // 10)  # repeats of one complaint inside the window (a hot spot)
QUERIES = 300
BASELINE_RUNS = 5
CHUNK = 50_000


def _percentile(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 3)


def _base_signatures() -> tuple[list[str], np.ndarray]:
    from rules.tickets.repeats import ticket_signature

    with shared_file("tickets/public.jsonl").open(encoding="utf-8") as rows:
        texts = [json.loads(line)["text"] for line in rows if line.strip()]
    return texts, np.stack([ticket_signature(text).values for text in texts])


def _synthetic_values(
    bases: np.ndarray, n: int, rng: np.random.Generator, near_share: float = NEAR_SHARE
) -> np.ndarray:
    """n signatures derived from the bases: most far from theirs (keep 0-30% of values), near_share near (90%)."""
    chosen = bases[rng.integers(0, len(bases), size=n)]
    keep_share = np.where(rng.random(n) < near_share, 0.9, rng.random(n) * 0.3)
    keep = rng.random(chosen.shape) < keep_share[:, None]
    noise = rng.integers(0, 2**32 - 1, size=chosen.shape, dtype=np.uint64).astype(np.uint32)
    return np.where(keep, chosen, noise).astype(np.uint32)


def _load(organisation: Any, bases: np.ndarray, vendor: str) -> dict[str, float]:
    """Bulk-load TICKETS documents, signatures and band rows; seconds per part."""
    from django.db import connection
    from django.utils import timezone

    from rules.tickets.repeats import band_keys

    rng = np.random.default_rng(7)
    now = timezone.now()
    timings = {"documents_s": 0.0, "signatures_s": 0.0, "bands_s": 0.0}
    org = organisation.pk
    with connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute("SET session_replication_role = replica")
        for name, info in connection.introspection.get_constraints(cursor, "contracts_ticketband").items():
            if info["index"] and not info["primary_key"]:
                cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
    for start in range(0, TICKETS, CHUNK):
        n = min(CHUNK, TICKETS - start)
        values = _synthetic_values(bases, n, rng)
        ages = rng.random(n) * HISTORY_DAYS
        if start == 0:  # a hot spot: HOT_CLUSTER repeats of the first public ticket within the window
            values[:HOT_CLUSTER] = _synthetic_values(bases[:1], HOT_CLUSTER, rng, near_share=1.0)
            ages[:HOT_CLUSTER] = rng.random(HOT_CLUSTER) * 29
        ids = [uuid.UUID(int=int(rng.integers(0, 2**62)) << 64 | (start + i)) for i in range(n)]
        times = [now - timedelta(days=float(age)) for age in ages]
        documents: list[tuple[Any, ...]] = []
        signatures: list[tuple[Any, ...]] = []
        bands: list[tuple[Any, ...]] = []
        for i in range(n):
            doc_id, at = ids[i], times[i]
            text = f"synthetic ticket {start + i}"
            documents.append(
                (
                    doc_id,
                    org,
                    "ticket",
                    "api",
                    "",
                    "",
                    "",
                    "text/plain",
                    len(text),
                    hashlib.sha256(text.encode()).hexdigest(),
                    "",
                    text,
                    "{}",
                    "",
                    at,
                )
            )
            signatures.append((doc_id, org, at, values[i].astype("<u4").tobytes(), "[]", ""))
            bands.extend((org, key, doc_id, at) for key in band_keys(values[i]))
        started = time.perf_counter()
        _insert(
            vendor,
            "contracts_document",
            ["id", "organisation_id", "kind", "source", "title", "original", "original_name", "content_type",
             "size_bytes", "sha256", "encoding", "text", "metadata", "reference", "created_at"],
            documents,
        )  # fmt: skip
        timings["documents_s"] += time.perf_counter() - started
        started = time.perf_counter()
        _insert(
            vendor,
            "contracts_ticketsignature",
            ["document_id", "organisation_id", "created_at", "minhash", "places", "caller"],
            signatures,
        )
        timings["signatures_s"] += time.perf_counter() - started
        started = time.perf_counter()
        _insert(vendor, "contracts_ticketband", ["organisation_id", "key", "document_id", "created_at"], bands)
        timings["bands_s"] += time.perf_counter() - started
        print(f"loaded {start + n:,} tickets", file=sys.stderr)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute("SET maintenance_work_mem = '512MB'")
        cursor.execute("CREATE INDEX ticket_band_lookup ON contracts_ticketband (organisation_id, key, created_at)")
        cursor.execute("CREATE INDEX contracts_ticketband_document_id ON contracts_ticketband (document_id)")
        if vendor == "postgresql":
            cursor.execute("SET session_replication_role = DEFAULT")
            cursor.execute("ANALYZE contracts_ticketband")
            cursor.execute("ANALYZE contracts_ticketsignature")
        else:
            cursor.execute("ANALYZE")
    timings["indexes_s"] = time.perf_counter() - started
    return {k: round(v, 1) for k, v in timings.items()}


def _insert(vendor: str, table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        if vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            adapted = [tuple(str(v) if isinstance(v, uuid.UUID) else v for v in row) for row in rows]
            if table == "contracts_document":  # SQLite stores UUIDs as 32 hex digits (Django's format)
                adapted = [(row[0].replace("-", ""), *row[1:]) for row in adapted]
            else:
                adapted = [
                    tuple(v.replace("-", "") if i == columns.index("document_id") else v for i, v in enumerate(row))
                    for row in adapted
                ]
            cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", adapted)


def _queries(texts: list[str]) -> list[Any]:
    from rules.tickets.repeats import ticket_signature
    from tests.rules.repeat_evaluation import positive_variants

    out = []
    for n, text in enumerate(texts[: QUERIES // 2]):
        for _how, variant in positive_variants(f"bench-{n}", text)[:2]:
            out.append(ticket_signature(variant))
    return out[:QUERIES]


def _lookups(organisation: Any, signatures: list[Any]) -> dict[str, Any]:
    """Latency of the candidate look-up alone and with scoring, over these queries."""
    from django.utils import timezone

    from contracts.hotline.cases import candidate_ids, repeats_find
    from contracts.models import Document

    until = timezone.now()
    probe = Document(organisation=organisation, kind="ticket", created_at=until)
    for signature in signatures[:20]:  # warm the caches as a running service has them
        candidate_ids(organisation.pk, signature, until=until)
    candidate_ms, full_ms, found = [], [], []
    for signature in signatures:
        started = time.perf_counter()
        ids = candidate_ids(organisation.pk, signature, until=until)
        candidate_ms.append((time.perf_counter() - started) * 1000)
        found.append(len(ids))
        started = time.perf_counter()
        repeats_find(probe, signature)
        full_ms.append((time.perf_counter() - started) * 1000)
    return {
        "queries": len(signatures),
        "candidate_lookup_ms": {"p50": _percentile(candidate_ms, 50), "p95": _percentile(candidate_ms, 95),
                                "max": _percentile(candidate_ms, 100)},
        "lookup_and_score_ms": {"p50": _percentile(full_ms, 50), "p95": _percentile(full_ms, 95),
                                "max": _percentile(full_ms, 100)},
        "candidates_per_lookup": {"mean": round(statistics.mean(found), 2), "max": max(found)},
    }  # fmt: skip


def _baseline(organisation: Any, signatures: list[Any]) -> dict[str, Any]:
    """Score every signature of the window (no band index), as a look-up without it must."""
    from django.conf import settings
    from django.utils import timezone

    from contracts.hotline.models import TicketSignature

    until = timezone.now()
    since = until - timedelta(days=settings.DOCGATE_REPEAT_WINDOW_DAYS)
    runs, size = [], 0
    for signature in signatures[:BASELINE_RUNS]:
        started = time.perf_counter()
        rows = TicketSignature.objects.filter(
            organisation=organisation, created_at__gte=since, created_at__lte=until
        ).values_list("minhash", flat=True)
        matrix = np.frombuffer(b"".join(bytes(r) for r in rows), dtype="<u4").reshape(-1, len(signature.values))
        size = len(matrix)
        (matrix == signature.values).sum(axis=1).argmax()
        runs.append((time.perf_counter() - started) * 1000)
    return {"window_signatures": size, "scan_ms_p50": _percentile(runs, 50)}


def _plan(organisation: Any, signature: Any, vendor: str) -> str:
    """The database's plan for one band key's range, as `candidate_ids` sends it (16 of them, UNION ALL)."""
    from django.db import connection
    from django.utils import timezone

    from contracts.hotline.cases import PER_BAND

    until = timezone.now()
    ops = connection.ops
    sql = (
        "SELECT document_id, created_at FROM contracts_ticketband WHERE organisation_id = %s AND key = %s "
        f"AND created_at >= %s AND created_at <= %s ORDER BY created_at DESC LIMIT {PER_BAND}"
    )
    params = [organisation.pk, signature.bands[0], ops.adapt_datetimefield_value(until - timedelta(days=30)),
              ops.adapt_datetimefield_value(until)]  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(("EXPLAIN " if vendor == "postgresql" else "EXPLAIN QUERY PLAN ") + sql, params)
        return " | ".join(" ".join(str(c) for c in row) for row in cursor.fetchall())[:600]


def _reused() -> Any:
    """The organisation of an earlier run's history at BENCH_DATABASE_URL (BENCH_CASES_REUSE=1: time again
    without loading again)."""
    os.environ.update({"DATABASE_URL": os.environ["BENCH_DATABASE_URL"], "REDIS_URL": "", "LLM_ENABLED": "false"})
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from contracts.models import Organisation

    return Organisation.objects.get(slug="bench")


def main() -> None:
    """Load the history, time the look-ups and print the JSON report."""
    reuse = os.environ.get("BENCH_CASES_REUSE") == "1" and os.environ.get("BENCH_DATABASE_URL")
    organisation = _reused() if reuse else django_bench_setup(os.environ.get("BENCH_DATABASE_URL", ""))[0]
    from django.db import connection

    vendor = connection.vendor
    texts, bases = _base_signatures()
    load = {"reused": True} if reuse else _load(organisation, bases, vendor)
    signatures = _queries(texts)
    looked_up = _lookups(organisation, signatures)
    from rules.tickets.repeats import ticket_signature
    from tests.rules.repeat_evaluation import positive_variants

    hot = [ticket_signature(v) for n in range(10) for _h, v in positive_variants(f"hot-{n}", texts[0])[:3]]
    baseline = _baseline(organisation, signatures)
    report = {
        "database": vendor,
        "stored_tickets": TICKETS,
        "band_rows": TICKETS * len(signatures[0].bands),
        "history_days": HISTORY_DAYS,
        "load_s": load,
        **looked_up,
        "hot_spot": {"repeats_in_window": HOT_CLUSTER, **_lookups(organisation, hot)},
        "baseline_window_scan": baseline,
        "ratio_scan_vs_candidate_lookup_p50": round(
            baseline["scan_ms_p50"] / max(looked_up["candidate_lookup_ms"]["p50"], 1e-6), 1
        ),
        "plan": _plan(organisation, signatures[0], vendor),
    }
    json.dump(report, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
