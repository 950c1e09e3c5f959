"""`manage.py train_adapter --organisation SLUG`: train the organisation's LoRA adapter of the served model on its
reviewed results, judge it against the base model on the held-back slice, activate it only if better.
`manage.py retrain --list` lists its versions (`llm_adapter`) and `--rollback llm_adapter` puts back the previous."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.learned.versions import version_row
from contracts.models import Organisation


class Command(BaseCommand):
    help = "Train an organisation's LLM adapter on its reviewed results; activate it only when better than the base."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organisation", required=True, help="organisation slug")

    def handle(self, *args: Any, organisation: str, **options: Any) -> None:
        org = Organisation.objects.filter(slug=organisation).first()
        if org is None:
            raise CommandError(f"No organisation with slug {organisation!r}.")
        from contracts.learned.adapter import organisation_adapter_train  # late: the command loads on every manage.py
        from contracts.llm import llm_client  # late: as above

        row = organisation_adapter_train(org, llm_client())
        shown = version_row(row) | {"training": (row.metrics or {}).get("training"),
                                    "judge_s": (row.metrics or {}).get("judge_s")}  # fmt: skip
        self.stdout.write(json.dumps(shown, ensure_ascii=False, indent=2))
