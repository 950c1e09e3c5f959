# The portal's job list, polled every 2 s while a job runs: one organisation's jobs newest first, read in order
# from this index instead of sorting all of the organisation's jobs on every poll.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('contracts', '0006_metrics_from_indexes'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='job',
            index=models.Index(fields=['organisation', '-created_at'], name='job_org_recent'),
        ),
    ]
