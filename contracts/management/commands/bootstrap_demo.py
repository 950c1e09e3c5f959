"""Create the demo organisation, its admin user and an API key (printed once)."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from contracts.models import ApiKey, Membership, Organisation, Role


class Command(BaseCommand):
    help = "Create a demo organisation with an admin user and an API key; prints the secrets once."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--slug", default="demo")
        parser.add_argument("--username", default="admin")

    @transaction.atomic
    def handle(self, *args: Any, slug: str, username: str, **options: Any) -> None:
        organisation, created = Organisation.objects.get_or_create(slug=slug, defaults={"name": "Demo 示例机构"})
        if not created:
            self.stdout.write(
                f"Organisation {slug!r} already exists; nothing printed again.\n"
                f"New key: python manage.py create_api_key {slug} --name another"
            )
            return
        user_model = get_user_model()
        password = secrets.token_urlsafe(12)
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_model.objects.create_superuser(username=username, password=password, email="")
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        Membership.objects.create(user=user, organisation=organisation, role=Role.ADMIN)
        _, raw_key = ApiKey.issue(organisation=organisation, name="demo key", created_by=user)
        self.stdout.write(self.style.SUCCESS("DocGate demo organisation created. Shown once — keep them:"))
        self.stdout.write(f"  portal user: {username}\n  password:    {password}\n  API key:     {raw_key}")
