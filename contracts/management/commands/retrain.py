"""`manage.py retrain --organisation SLUG`: retrain its models from its reviewers' corrections, activate each only
when better on the held-back slice; `--list` shows every version, `--rollback NAME` puts back the previous one."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.learned.versions import ModelVersionError, model_rollback, version_row
from contracts.models import LearnedModelVersion, Organisation


class Command(BaseCommand):
    help = "Retrain an organisation's ticket classifier, clause model and safety thresholds from its reviews."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organisation", required=True, help="organisation slug")
        parser.add_argument("--kind", action="append", dest="kinds", help="tickets, clauses, safety_thresholds")
        parser.add_argument("--data", help="the organisation's labelled ticket history ({text, label} JSONL), kept")
        parser.add_argument("--list", action="store_true", help="list the versions and their slice evaluations")
        parser.add_argument("--rollback", metavar="NAME", help="put back the version the active NAME replaced")

    def handle(self, *args: Any, organisation: str, kinds: list[str] | None, data: str | None, list: bool,
               rollback: str | None, **options: Any) -> None:  # fmt: skip
        org = Organisation.objects.filter(slug=organisation).first()
        if org is None:
            raise CommandError(f"No organisation with slug {organisation!r}.")
        if list:
            listed = LearnedModelVersion.objects.filter(organisation=org)
            self.stdout.write(json.dumps([version_row(row) for row in listed], ensure_ascii=False, indent=2))
            return
        if rollback:
            try:
                row = model_rollback(organisation=org, name=rollback)
            except ModelVersionError as exc:
                raise CommandError(exc.message) from exc
            self.stdout.write(json.dumps({"rolled_back": row.version, "now": row.replaced or None}, ensure_ascii=False))
            return
        from contracts.learned.retrain import RETRAINERS, organisation_retrain  # heavy: scikit-learn
        from contracts.learned.tickets_retrain import ticket_base_store

        if data:
            try:
                self.stderr.write(f"kept {ticket_base_store(org, data)} labelled tickets as the base history")
            except (FileNotFoundError, ValueError, KeyError) as exc:
                raise CommandError(f"--data {data}: not {{text, label}} JSONL ({exc})") from exc
        try:
            rows = organisation_retrain(org, kinds=kinds or tuple(RETRAINERS))
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps([version_row(row) for row in rows], ensure_ascii=False, indent=2))
