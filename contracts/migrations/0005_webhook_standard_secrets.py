"""Webhook secrets move to the Standard Webhooks form, `whsec_` + base64 of the key, keeping every key byte.

Before, DocGate keyed its HMAC with the UTF-8 bytes of the secret string as given (its own generated
`whsec_<url-safe token>` ones included). Each stored secret becomes `whsec_` + base64 of exactly those bytes, so
the key does not change and a receiver that holds the old string verifies with `Webhook(old.encode())`.
A rule guessing at signing time which strings are old could not tell an admin's plain secret that happens to be
valid base64 from a new one; rewriting each row once, here, cannot be wrong.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django.db import migrations, models

PREFIX = "whsec_"


def secrets_to_standard(apps: Any, schema_editor: Any) -> None:
    """Every stored secret, as it was used (its UTF-8 bytes), to `whsec_` + base64."""
    endpoint_model = apps.get_model("contracts", "WebhookEndpoint")
    for endpoint in endpoint_model.objects.all().only("pk", "secret"):
        key = endpoint.secret.encode("utf-8")
        endpoint_model.objects.filter(pk=endpoint.pk).update(secret=PREFIX + base64.b64encode(key).decode("ascii"))


def secrets_to_plain(apps: Any, schema_editor: Any) -> None:
    """Back to the string whose UTF-8 bytes are the key, where the key is text (secrets generated since are not)."""
    endpoint_model = apps.get_model("contracts", "WebhookEndpoint")
    for endpoint in endpoint_model.objects.all().only("pk", "secret"):
        try:
            plain = base64.b64decode(endpoint.secret.removeprefix(PREFIX), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue  # random key bytes: the old code cannot sign with them as text; leave the row as it is
        if len(plain) <= 200:
            endpoint_model.objects.filter(pk=endpoint.pk).update(secret=plain)


class Migration(migrations.Migration):
    dependencies = [
        ("contracts", "0004_progressive_results"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhookendpoint",
            name="secret",
            field=models.CharField(max_length=1000),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="previous_secret",
            field=models.CharField(blank=True, default="", max_length=1000),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="previous_secret_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(secrets_to_standard, secrets_to_plain),
    ]
