"""Issue an API key for an organisation and print it once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from contracts.models import ApiKey, Organisation


class Command(BaseCommand):
    help = "Issue a new API key for an organisation (the key is printed once and never stored)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("organisation", help="organisation slug")
        parser.add_argument("--name", default="api key")

    def handle(self, *args: Any, organisation: str, name: str, **options: Any) -> None:
        org = Organisation.objects.filter(slug=organisation).first()
        if org is None:
            raise CommandError(f"No organisation with slug {organisation!r}.")
        key, raw = ApiKey.issue(organisation=org, name=name)
        self.stdout.write(raw)
        self.stderr.write(f"key dg_{key.prefix}… issued for {org.slug}; store it now, it is not shown again")
