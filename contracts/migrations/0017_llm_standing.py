"""The model's answers and probe counters of the standing policy (contracts.standing)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("contracts", "0016_reviewer_examples"),
    ]

    operations = [
        migrations.CreateModel(
            name="LLMAnswer",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("task", models.CharField(max_length=32)),
                ("model", models.CharField(max_length=200)),
                ("valid", models.BooleanField()),
                ("grounded", models.BooleanField()),
                ("agreed", models.BooleanField(null=True)),
                ("named", models.JSONField(blank=True, default=list)),
                ("scope", models.JSONField(blank=True, default=dict)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "job",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="contracts.job",
                    ),
                ),
                (
                    "organisation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="contracts.organisation"
                    ),
                ),
            ],
            options={
                "indexes": [models.Index(fields=["organisation", "task", "model", "-id"], name="llm_answer_window")],
            },
        ),
        migrations.CreateModel(
            name="LLMProbe",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("task", models.CharField(max_length=32)),
                ("model", models.CharField(max_length=200)),
                ("skipped", models.PositiveIntegerField(default=0)),
                ("probed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "organisation",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="contracts.organisation"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("organisation", "task", "model"), name="one_llm_probe_per_task")
                ],
            },
        ),
    ]
