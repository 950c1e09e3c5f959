"""`manage.py train_ticket_classifier --data FILE.jsonl --organisation SLUG`: fit and publish a classifier."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.learned.tickets import classifier_publish
from contracts.models import Organisation
from rules.evaluation.common import jsonl_rows


class Command(BaseCommand):
    help = "Train the ticket classifier on an organisation's labelled history ({id, text, label} JSONL)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--data", required=True)
        parser.add_argument("--organisation", required=True, help="organisation slug")

    def handle(self, *args: Any, data: str, organisation: str, **options: Any) -> None:
        # heavy: scikit-learn, loaded only when a classifier is trained or used
        from rules.tickets.classifier import train_classifier

        org = Organisation.objects.filter(slug=organisation).first()
        if org is None:
            raise CommandError(f"No organisation with slug {organisation!r}.")
        try:
            rows = list(jsonl_rows(data))
            texts = [str(row["text"]) for row in rows]
            labels = [str(row["label"]) for row in rows]
        except FileNotFoundError as exc:
            raise CommandError(f"--data {data}: no such file") from exc
        except (ValueError, KeyError) as exc:
            raise CommandError(f"--data {data}: rows need text and label ({exc})") from exc
        self.stderr.write(f"training on {len(texts)} tickets …")
        try:
            classifier = train_classifier(texts, labels)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        directory = classifier_publish(org.slug, classifier)
        self.stdout.write(
            json.dumps(
                {
                    "organisation": org.slug,
                    "model_version": classifier.version,
                    "n_samples": len(texts),
                    "labels": list(classifier.labels),
                    # What the cross-validation inside training measured, and where each category's routing stops.
                    "calibration": classifier.metadata["calibration"],
                    "thresholds": classifier.thresholds,
                    "training_seconds": classifier.metadata["training_seconds"],
                    "path": str(directory),
                },
                ensure_ascii=False,
            )
        )
