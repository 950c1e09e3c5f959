"""`manage.py train_safety_model --data FILE... (--out DIR | --organisation SLUG)`: fit the safety classifier."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.gate import safety_model_publish
from contracts.models import Organisation
from rules.evaluation.common import jsonl_rows


def text_lines(path: str) -> list[str]:
    """Texts of a file: JSONL rows' `text`, or one text per non-empty line of a plain text file."""
    file = Path(path)
    if not file.is_file():
        raise CommandError(f"{path}: no such file")
    if file.suffix == ".jsonl":
        try:
            return [str(row["text"]) for row in jsonl_rows(file)]
        except (KeyError, ValueError) as exc:
            raise CommandError(f"{path}: every JSONL row needs a text ({exc})") from exc
    try:
        return [line.strip() for line in file.read_text(encoding="utf-8").splitlines() if line.strip()]
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not UTF-8 text ({exc})") from exc


class Command(BaseCommand):
    help = (
        "Train the safety classifier on labelled JSONL ({text, label: unsafe|sensitive|safe, category, source}); "
        "rows of sources without a licence that lets a model ship (e.g. tickets) are left out and counted."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--data", nargs="+", required=True, help="labelled JSONL files")
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--out", help="write the model into this directory")
        target.add_argument("--organisation", help="publish as this organisation's model (var/models/<org>/safety)")
        parser.add_argument(
            "--extra-safe",
            nargs="*",
            default=[],
            help="the organisation's own safe texts (JSONL with text, or one text per line)",
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--limit", type=int, help="train on the first N rows only (quick looks, tests)")

    def handle(self, *args: Any, **options: Any) -> None:
        from rules.safety.training import (  # heavy: scikit-learn, needed only when training
            train_safety_model,
            training_examples,
        )

        rows: list[dict[str, Any]] = []
        for path in options["data"]:
            if not Path(path).is_file():
                raise CommandError(f"--data {path}: no such file")
            try:
                rows.extend(jsonl_rows(path))
            except ValueError as exc:
                raise CommandError(f"--data {path}: {exc}") from exc
        if options.get("limit"):
            rows = rows[: options["limit"]]
        extra = [text for path in options["extra_safe"] for text in text_lines(path)]
        try:
            examples, skipped = training_examples(rows)
            for source, count in sorted(skipped.items()):
                self.stderr.write(f"left out {count} rows of {source!r}: no licence that lets a trained model ship")
            self.stderr.write(f"training on {len(examples)} rows (+{len(extra)} extra safe), seed {options['seed']} …")
            model = train_safety_model(examples, extra_safe=extra, seed=options["seed"])
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if options.get("organisation"):
            if not Organisation.objects.filter(slug=options["organisation"]).exists():
                raise CommandError(f"No organisation with slug {options['organisation']!r}.")
            directory = safety_model_publish(options["organisation"], model)
        else:
            directory = str(model.save(options["out"]))
        self.stdout.write(
            json.dumps(
                {
                    "model_version": model.version,
                    "n_samples": model.metadata["n_samples"],
                    "label_counts": model.metadata["label_counts"],
                    "left_out": dict(skipped),
                    "weights_sha256": model.metadata["weights_sha256"],
                    "path": directory,
                },
                ensure_ascii=False,
            )
        )
