"""Write latency under the search GIN indexes (migrations 0014, 0019) with GIN's pending list (fastupdate) on and off.

Run: `BENCH_DATABASE_URL=postgres://…/postgres python -m tests.benchmarks.bench_gin_writes [ROWS] [WRITES]` (a
throw-away database `docgate_gin_writes` is made beside it and dropped). ROWS (50,000) stored texts, then WRITES
(4,000) single-row INSERTs of 200 characters (a ticket's intake) and, every fourth, an UPDATE of a stored row to 3,000
characters (extraction's write), each in its own transaction; autovacuum is off so that the pending list is merged
by the writes themselves, as on a busy server between vacuums. Variants alternate on, off, on, off. One JSON object.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import sys
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import psycopg

# Common characters of Chinese text, drawn at random (a text's bigrams and trigrams are mostly distinct).
CHARACTERS = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所"
    "民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日"
    "那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想"
    "已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指"
    "几九区强放决西被干做必战先回则任取据处府研"
)
NAME = "docgate_gin_writes"


def _text(rng: random.Random, chars: int) -> str:
    return "".join(rng.choice(CHARACTERS) for _ in range(chars))


def _ms(values: list[float]) -> dict[str, float]:
    shown = {f"p{q}": round(float(np.percentile(values, q)), 2) for q in (50, 99, 99.9)}
    return {**shown, "max": round(max(values), 1), "mean": round(float(np.mean(values)), 2)}


def _database(admin: str, name: str) -> str:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(admin)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def variant_run(admin: str, fastupdate: str, rows: int, writes: int) -> dict[str, Any]:
    """One variant on a fresh database: the indexes as migrated, fastupdate set; the writes' latencies."""
    trigrams = importlib.import_module("contracts.migrations.0014_search")
    bigrams = importlib.import_module("contracts.migrations.0019_search_bigrams")
    rng = random.Random(5)
    with psycopg.connect(_database(admin, NAME), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pg_trgm")
        conn.execute("CREATE TABLE contracts_document (id bigserial PRIMARY KEY, text text NOT NULL)")
        conn.execute(bigrams.POSTGRES_FUNCTION)
        with conn.cursor().copy("COPY contracts_document (text) FROM STDIN") as copy:
            for _ in range(rows):
                copy.write_row((_text(rng, 150),))
        conn.execute(trigrams.POSTGRES_INDEX)
        conn.execute(bigrams.POSTGRES_INDEX)
        for index in ("contracts_document_text_trgm", "contracts_document_text_bigram"):
            conn.execute(f"ALTER INDEX {index} SET (fastupdate = {fastupdate})")
        conn.execute("ALTER TABLE contracts_document SET (autovacuum_enabled = off)")
        conn.execute("VACUUM ANALYZE contracts_document")
        inserts: list[float] = []
        updates: list[float] = []
        for n in range(writes):
            text = _text(rng, 200)
            started = time.perf_counter()
            conn.execute("INSERT INTO contracts_document (text) VALUES (%s)", (text,))
            inserts.append((time.perf_counter() - started) * 1000)
            if n % 4 == 0:
                text, row = _text(rng, 3000), rng.randint(1, rows)
                started = time.perf_counter()
                conn.execute("UPDATE contracts_document SET text = %s WHERE id = %s", (text, row))
                updates.append((time.perf_counter() - started) * 1000)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{NAME}"')
    return {"fastupdate": fastupdate, "insert_200_chars_ms": _ms(inserts), "update_3000_chars_ms": _ms(updates)}


def main() -> None:
    """Alternate the variants and print the report."""
    admin = os.environ.get("BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    writes = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000
    runs = [variant_run(admin, fastupdate, rows, writes) for fastupdate in ("on", "off", "on", "off")]
    print(json.dumps({"bench": "gin_writes", "rows": rows, "writes": writes, "runs": runs}))


if __name__ == "__main__":
    main()
