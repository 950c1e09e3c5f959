# Ticket deadlines: a ticket's clock and progress (one row per ticket), and an organisation's own service levels.

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('contracts', '0009_invitations'),
    ]

    operations = [
        migrations.CreateModel(
            name='ServiceLevel',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('tier', models.CharField(choices=[('emergency', 'Emergency'), ('utilities', 'Water, power, gas, heating'), ('general', 'General'), ('complex', 'Complex')], max_length=16)),
                ('limit', models.PositiveIntegerField(help_text='How many hours or working days the tier allows.')),
                ('unit', models.CharField(choices=[('hours', 'hours'), ('working_days', 'working days')], max_length=16)),
                ('organisation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='service_levels', to='contracts.organisation')),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('organisation', 'tier'), name='one_service_level_per_tier')],
            },
        ),
        migrations.CreateModel(
            name='TicketDeadline',
            fields=[
                ('document', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='ticket_deadline', serialize=False, to='contracts.document')),
                ('received_at', models.DateTimeField()),
                ('tier', models.CharField(blank=True, choices=[('emergency', 'Emergency'), ('utilities', 'Water, power, gas, heating'), ('general', 'General'), ('complex', 'Complex')], max_length=16)),
                ('limit', models.PositiveIntegerField(blank=True, null=True)),
                ('unit', models.CharField(blank=True, choices=[('hours', 'hours'), ('working_days', 'working days')], max_length=16)),
                ('rule_id', models.CharField(blank=True, max_length=64)),
                ('due_at', models.DateTimeField(blank=True, null=True)),
                ('due_soon_at', models.DateTimeField(blank=True, null=True)),
                ('state', models.CharField(choices=[('on_time', 'On time'), ('due_soon', 'Due soon'), ('overdue', 'Overdue')], default='on_time', max_length=16)),
                ('due_soon_marked_at', models.DateTimeField(blank=True, null=True)),
                ('overdue_marked_at', models.DateTimeField(blank=True, null=True)),
                ('stopped_at', models.DateTimeField(blank=True, null=True)),
                ('progress', models.CharField(choices=[('received', 'Received'), ('dispatched', 'Dispatched'), ('answered', 'Answered'), ('closed', 'Closed'), ('returned', 'Returned')], default='received', max_length=16)),
                ('progress_at', models.DateTimeField(blank=True, null=True)),
                ('department', models.CharField(blank=True, max_length=200)),
                ('return_reason', models.TextField(blank=True)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('organisation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='contracts.organisation')),
            ],
            options={
                'indexes': [models.Index(condition=models.Q(('state', 'on_time'), ('stopped_at__isnull', True)), fields=['due_soon_at'], name='deadline_due_soon'), models.Index(condition=models.Q(('state__in', ['on_time', 'due_soon']), ('stopped_at__isnull', True)), fields=['due_at'], name='deadline_overdue')],
            },
        ),
    ]
