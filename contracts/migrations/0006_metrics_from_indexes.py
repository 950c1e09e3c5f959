# What /metrics reads, indexed: the gate decision of each pipeline run's final result as a column (filled in
# from existing results' data) instead of every recent result's JSON, degraded jobs, the pending review backlog.

from django.db import migrations, models

BATCH = 2000


def gate_decisions_backfill(apps, schema_editor):
    """Copy `data.gate.decision` onto the pipeline's final results (not provisional, not reviewed versions)."""
    Result = apps.get_model("contracts", "Result")
    pipeline_final = Result.objects.filter(final=True).exclude(provenance__has_key="review_task")
    batch = []
    for result in pipeline_final.only("pk", "data").order_by("pk").iterator(chunk_size=BATCH):
        data = result.data if isinstance(result.data, dict) else {}
        gate = data.get("gate") if isinstance(data.get("gate"), dict) else {}
        result.gate_decision = str(gate.get("decision") or "unknown")[:16]
        batch.append(result)
        if len(batch) == BATCH:
            Result.objects.bulk_update(batch, ["gate_decision"])
            batch = []
    Result.objects.bulk_update(batch, ["gate_decision"])


class Migration(migrations.Migration):

    dependencies = [
        ('contracts', '0005_webhook_standard_secrets'),
    ]

    operations = [
        migrations.AddField(
            model_name='result',
            name='gate_decision',
            field=models.CharField(blank=True, default='', max_length=16),
        ),
        migrations.RunPython(gate_decisions_backfill, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='result',
            index=models.Index(condition=models.Q(('gate_decision', ''), _negated=True), fields=['created_at', 'gate_decision'], name='result_gated'),
        ),
        migrations.AddIndex(
            model_name='job',
            index=models.Index(condition=models.Q(('degraded', True)), fields=['state'], name='job_degraded'),
        ),
        migrations.AddIndex(
            model_name='reviewtask',
            index=models.Index(condition=models.Q(('state', 'finalized'), _negated=True), fields=['state', 'created_at'], name='review_pending'),
        ),
    ]
