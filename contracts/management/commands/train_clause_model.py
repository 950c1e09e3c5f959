"""`manage.py train_clause_model --corpus FILE... (--out DIR | --organisation SLUG)`: learn clause types from
article headings of unlabelled contracts (`rules.clauses.heading_model`)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.learned.clauses import clause_model_publish
from contracts.models import Organisation
from rules.clauses.heading_model import ClauseModelError, train_clause_model
from rules.evaluation.common import jsonl_rows


def corpus_texts(paths: list[str]) -> list[str]:
    """Contract texts from JSONL files (a `text` per row) or plain UTF-8 text files (one contract each)."""
    texts: list[str] = []
    for path in paths:
        try:
            if path.endswith(".jsonl"):
                texts.extend(str(row["text"]) for row in jsonl_rows(path))
            else:
                texts.append(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise CommandError(f"--corpus {path}: no such file") from exc
        except (ValueError, KeyError, UnicodeDecodeError) as exc:
            raise CommandError(f"--corpus {path}: not JSONL rows with text, nor UTF-8 text ({exc})") from exc
    return texts


class Command(BaseCommand):
    help = (
        "Train the article classifier on contracts whose articles carry headings (no labels needed): into --out "
        "DIR, or as the organisation's current clause model."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--corpus", nargs="+", required=True, help="JSONL files with text, or .txt contracts")
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--out", help="directory to write the model into")
        target.add_argument("--organisation", help="publish as this organisation's clause model")
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, corpus: list[str], out: str | None, organisation: str | None, seed: int,
               **options: Any) -> None:  # fmt: skip
        if organisation is not None and not Organisation.objects.filter(slug=organisation).exists():
            raise CommandError(f"No organisation with slug {organisation!r}.")
        texts = corpus_texts(corpus)
        self.stderr.write(f"training on the headed articles of {len(texts)} contracts …")
        try:
            model = train_clause_model(texts, seed=seed)
        except ClauseModelError as exc:
            raise CommandError(str(exc)) from exc
        model.metadata["model_version"] = "clauses-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        directory = clause_model_publish(organisation, model) if organisation else model.save(out or ".")
        self.stdout.write(
            json.dumps(
                {
                    "model_version": model.version,
                    "labels": list(model.labels),
                    "examples": model.metadata["examples"],
                    "left_to_rules": model.metadata["left_to_rules"],
                    "path": str(directory),
                },
                ensure_ascii=False,
            )
        )
