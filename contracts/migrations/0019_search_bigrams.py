"""Two-character queries get an index on PostgreSQL (contracts.search): most Chinese words are two characters, and
a trigram index cannot serve them, so a rare one read every document of the organisation. A GIN index over each
document's distinct character bigrams (of UPPER(text), as `icontains` compares) answers them exactly.

Both search indexes are written without GIN's pending list (fastupdate off). With it, a write appends its entries
to a list that the write crossing gin_pending_list_limit (4 MB) merges into the index: with 50,000 stored rows and
single-row writes, fastupdate on and off alternating twice (tests/benchmarks/bench_gin_writes.py), an UPDATE of a
3,000-character text (extraction's write) took P99 3.2-3.6 s (up to 4.7 s) with the list, 95-135 ms without (mean
79-85 -> 47-71 ms); its median rose 14 -> 43-67 ms and a 200-character INSERT's 3.9 -> 4.3-8.0 ms. A bounded tail for whichever write
crosses the limit (an upload as likely as the worker) is worth a steady few milliseconds."""

from __future__ import annotations

from typing import Any

from django.db import migrations

# The bigrams of a text, distinct. One pass over its characters (string_to_array with a NULL separator splits
# into characters; lead() pairs each with the next): substr(text, i, 2) would walk the UTF-8 text from its start for
# every i, quadratic in the text's length (1.5 s for a 20,000-character contract, against 0.13 s for 120,000 here).
POSTGRES_FUNCTION = """
CREATE OR REPLACE FUNCTION docgate_bigrams(doc text) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT pair), '{}') FROM (
    SELECT c || lead(c) OVER (ORDER BY i) AS pair FROM unnest(string_to_array(doc, NULL)) WITH ORDINALITY AS t(c, i)
  ) pairs WHERE pair IS NOT NULL
$$"""
POSTGRES_INDEX = (
    "CREATE INDEX IF NOT EXISTS contracts_document_text_bigram ON contracts_document "
    "USING gin (docgate_bigrams(UPPER(text))) WITH (fastupdate = off)"
)
# The trigram index of migration 0014 too; entries already pending are merged now (turning the list off does not).
TRIGRAM_FASTUPDATE_OFF = [
    "ALTER INDEX contracts_document_text_trgm SET (fastupdate = off)",
    "SELECT gin_clean_pending_list('contracts_document_text_trgm'::regclass)",
]
TRIGRAM_FASTUPDATE_RESET = "ALTER INDEX contracts_document_text_trgm RESET (fastupdate)"
POSTGRES_DROP = "DROP INDEX IF EXISTS contracts_document_text_bigram"
POSTGRES_FUNCTION_DROP = "DROP FUNCTION IF EXISTS docgate_bigrams(text)"


def index_create(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_FUNCTION)
        schema_editor.execute(POSTGRES_INDEX)
        for sql in TRIGRAM_FASTUPDATE_OFF:
            schema_editor.execute(sql)


def index_drop(apps: Any, schema_editor: Any) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(POSTGRES_DROP)
        schema_editor.execute(POSTGRES_FUNCTION_DROP)
        schema_editor.execute(TRIGRAM_FASTUPDATE_RESET)


class Migration(migrations.Migration):
    dependencies = [
        ("contracts", "0018_reviewer_example_outside_tasks"),
    ]

    operations = [
        migrations.RunPython(index_create, index_drop),
    ]
