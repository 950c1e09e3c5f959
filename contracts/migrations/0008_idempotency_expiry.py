# Beat deletes Idempotency-Key records past DOCGATE_IDEMPOTENCY_TTL_S by their age: an index for that range.

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('contracts', '0007_job_org_recent'),
    ]

    operations = [
        migrations.AlterField(
            model_name='idempotencyrecord',
            name='created_at',
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
    ]
