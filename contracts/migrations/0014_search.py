"""Full-text search indexes for Chinese (contracts.search): character trigrams, no word tokenising."""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations

# Django's `icontains` compares UPPER(text) on PostgreSQL: the index is of that expression, so that it serves it.
POSTGRES_INDEX = (
    "CREATE INDEX IF NOT EXISTS contracts_document_text_trgm ON contracts_document USING gin (UPPER(text) gin_trgm_ops)"
)
POSTGRES_DROP = "DROP INDEX IF EXISTS contracts_document_text_trgm"
# SQLite: an FTS5 table of each document's text, trigram-tokenised, kept in step with contracts_document by
# triggers (every write, a queryset's update() included).
SQLITE_INDEX = [
    "CREATE VIRTUAL TABLE contracts_document_search USING fts5(document_id UNINDEXED, text, tokenize='trigram')",
    "INSERT INTO contracts_document_search (document_id, text) SELECT id, text FROM contracts_document",
    """CREATE TRIGGER contracts_document_search_insert AFTER INSERT ON contracts_document BEGIN
        INSERT INTO contracts_document_search (document_id, text) VALUES (new.id, new.text); END""",
    """CREATE TRIGGER contracts_document_search_update AFTER UPDATE OF text ON contracts_document BEGIN
        DELETE FROM contracts_document_search WHERE document_id = old.id;
        INSERT INTO contracts_document_search (document_id, text) VALUES (new.id, new.text); END""",
    """CREATE TRIGGER contracts_document_search_delete AFTER DELETE ON contracts_document BEGIN
        DELETE FROM contracts_document_search WHERE document_id = old.id; END""",
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS contracts_document_search_insert",
    "DROP TRIGGER IF EXISTS contracts_document_search_update",
    "DROP TRIGGER IF EXISTS contracts_document_search_delete",
    "DROP TABLE IF EXISTS contracts_document_search",
]


def _run(schema_editor: Any, postgres: list[str], sqlite: list[str]) -> None:
    vendor = schema_editor.connection.vendor
    for sql in postgres if vendor == "postgresql" else sqlite if vendor == "sqlite" else []:
        schema_editor.execute(sql)


def index_create(apps: Any, schema_editor: Any) -> None:
    _run(schema_editor, [POSTGRES_INDEX], SQLITE_INDEX)


def index_drop(apps: Any, schema_editor: Any) -> None:
    _run(schema_editor, [POSTGRES_DROP], SQLITE_DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("contracts", "0013_organisation_reply_contacts"),
    ]

    operations = [
        TrigramExtension(),
        migrations.RunPython(index_create, index_drop),
    ]
