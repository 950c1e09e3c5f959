"""`manage.py export_reviewer_examples --organisation SLUG [--user NAME] [--out FILE]`: the organisation's reviewer
decisions as labelled JSONL; personal data masked unless --user names a member whose role sees it."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from contracts.models import Organisation
from contracts.review.examples_export import reviewer_examples_jsonl
from contracts.tenancy.memberships import reviewer_role
from contracts.tenancy.personal_data import role_sees_personal_data


class Command(BaseCommand):
    help = "Export an organisation's reviewer examples (corrections as labelled data) as JSONL."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--organisation", required=True, help="organisation slug")
        parser.add_argument("--user", help="the exporter: personal data in full only if their role sees it")
        parser.add_argument("--kind", action="append", dest="kinds", default=[], help="only these example kinds")
        parser.add_argument("--out", help="file to write (default: standard output)")

    def handle(self, *args: Any, organisation: str, user: str | None, kinds: list[str], out: str | None,
               **options: Any) -> None:  # fmt: skip
        org = Organisation.objects.filter(slug=organisation).first()
        if org is None:
            raise CommandError(f"No organisation with slug {organisation!r}.")
        exporter = get_user_model().objects.filter(username=user).first() if user else None
        if user and exporter is None:
            raise CommandError(f"No user {user!r}.")
        sees = exporter is not None and role_sees_personal_data(reviewer_role(user=exporter, organisation=org))
        lines = reviewer_examples_jsonl(organisation=org, sees_personal_data=sees, kinds=kinds)
        count = 0
        handle = open(out, "w", encoding="utf-8") if out else None  # noqa: SIM115
        try:
            for line in lines:
                if handle is not None:
                    handle.write(line)
                else:
                    self.stdout.write(line, ending="")
                count += 1
        finally:
            if handle is not None:
                handle.close()
        self.stderr.write(f"{count} examples ({'personal data in full' if sees else 'personal data masked'})")
