"""`manage.py analyze PATH... --json`: the whole pipeline on local files, one JSON object per line, no database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.analysis import document_analyze
from contracts.refusals import Refused


class Command(BaseCommand):
    help = (
        "Run extraction, normalization, rules, the LLM (if --llm on), the gate and the merge on local files, "
        "without the database or the queue; print one JSON line per file: {path, kind, result} or {path, error}. "
        "Exit status 0 when every file was read, 1 otherwise."
    )
    # A local analysis needs no database: the system checks (and their database lookups) are skipped.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("paths", nargs="+", help="files to analyze (text, DOCX, PDF)")
        parser.add_argument("--kind", choices=("contract", "ticket"), default="contract")
        parser.add_argument("--llm", choices=("off", "on"), default="off", help="ask the configured LLM too")
        parser.add_argument("--organisation", default="", help="use this organisation's trained models")
        parser.add_argument("--json", action="store_true", help="print JSON lines (the only output format)")

    def handle(self, *args: Any, paths: list[str], kind: str, llm: str, organisation: str, **options: Any) -> None:
        unread = 0
        for path in paths:
            line: dict[str, Any] = {"path": path, "kind": kind}
            try:
                raw = Path(path).read_bytes()
                line["result"] = document_analyze(
                    raw, name=Path(path).name, kind=kind, llm=llm == "on", organisation_slug=organisation
                )
            except Refused as exc:
                line = {"path": path, "error": {"code": exc.code, "message": exc.message}}
            except OSError as exc:
                line = {"path": path, "error": {"code": "unreadable_file", "message": exc.strerror or str(exc)}}
            if "error" in line:
                unread += 1
            self.stdout.write(json.dumps(line, ensure_ascii=False))
        if unread:
            raise CommandError(f"{unread} of {len(paths)} file(s) could not be read", returncode=1)
