"""DocGate's domain: organisations, API keys, documents, jobs, versioned results and the audit log (webhooks in
`contracts.webhooks.models`, invitations in `contracts.tenancy.models`, repeat cases in `contracts.hotline.models`,
ticket deadlines in `contracts.hotline.deadlines.models`, reviewer examples and learned model versions in
`contracts.review.models`, re-exported here)."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from contracts.hotline.deadlines.models import ServiceLevel, TicketDeadline  # noqa: F401 (Django reads them here)
from contracts.hotline.models import Case, CaseTicket, TicketBand, TicketSignature  # noqa: F401 (Django reads them here)
from contracts.review.models import ExampleKind, LearnedModelVersion, ModelState, ReviewerExample  # noqa: F401 (Django reads them here)
from contracts.standing.models import LLMAnswer, LLMProbe  # noqa: F401 (Django reads them here)
from contracts.tenancy.models import Invitation  # noqa: F401 (Django reads it here)
from contracts.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint  # noqa: F401 (Django reads them here)

# A row's primary key as stored (UUID) or as it arrives in a URL or a task message (its string form).
RowId = uuid.UUID | str


class Organisation(models.Model):
    """A customer: every document, key and result belongs to exactly one."""

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The organisation's own public contact details (hotline and office numbers, e-mail, web address), one per
    # line: a reply to a citizen may give these, and no others (`contracts.hotline.replies`).
    reply_contacts = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return self.name

    @property
    def reply_contact_list(self) -> list[str]:
        return [line.strip() for line in self.reply_contacts.splitlines() if line.strip()]


class Role(models.TextChoices):
    SUBMITTER = "submitter", "Submitter"
    REVIEWER = "reviewer", "Reviewer"
    ADMIN = "admin", "Admin"


class Membership(models.Model):
    """A user's role in one organisation (a user may belong to several)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.SUBMITTER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "organisation"], name="one_membership_per_org")]

    def __str__(self) -> str:
        return f"{self.user} in {self.organisation} as {self.role}"


API_KEY_PREFIX_LEN = 8


def api_key_hash(raw_key: str) -> str:
    """Return the SHA-256 hex digest stored for a key (keys are 256-bit random, so no slow hash is needed)."""
    return hashlib.sha256(raw_key.encode()).hexdigest()


class ApiKey(models.Model):
    """An organisation's API key: only a hash is stored, the prefix is shown to identify it."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=API_KEY_PREFIX_LEN, unique=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} (dg_{self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @classmethod
    def issue(cls, *, organisation: Organisation, name: str, created_by: Any = None) -> tuple[ApiKey, str]:
        """Create a key; return it with the raw secret, which is never stored and shown only once."""
        prefix = secrets.token_hex(API_KEY_PREFIX_LEN // 2)
        raw = f"dg_{prefix}.{secrets.token_urlsafe(32)}"
        key = cls.objects.create(
            organisation=organisation, name=name, prefix=prefix, key_hash=api_key_hash(raw), created_by=created_by
        )
        return key, raw


class DocumentKind(models.TextChoices):
    CONTRACT = "contract", "Contract"
    TICKET = "ticket", "Ticket"


class DocumentSource(models.TextChoices):
    API = "api", "API"
    PORTAL = "portal", "Portal"


def document_upload_path(instance: Document, filename: str) -> str:
    """Store originals under generated names: never a path the user chose."""
    return f"originals/{instance.organisation_id}/{instance.id}.bin"


class Document(models.Model):
    """What a user sent: the original bytes (if a file), the extracted text and its metadata."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="documents")
    kind = models.CharField(max_length=16, choices=DocumentKind.choices)
    source = models.CharField(max_length=16, choices=DocumentSource.choices)
    title = models.CharField(max_length=300, blank=True)
    original = models.FileField(upload_to=document_upload_path, null=True, blank=True)
    original_name = models.CharField(max_length=255, blank=True)
    content_type = models.CharField(max_length=100)
    size_bytes = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    encoding = models.CharField(max_length=32, blank=True)
    # How sure the encoding of a plain-text file is (contracts.intake.encodings); null where it does not apply.
    encoding_confidence = models.FloatField(null=True, blank=True)
    text = models.TextField()
    metadata = models.JSONField(default=dict, blank=True)
    reference = models.CharField(max_length=200, blank=True)
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    api_key = models.ForeignKey(ApiKey, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["organisation", "sha256"], name="one_document_per_checksum_per_org")
        ]
        indexes = [models.Index(fields=["organisation", "kind", "created_at"])]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.kind} {self.id}"

    @property
    def text_pending(self) -> bool:
        """Whether its text is still to be read from the stored file (a PDF, Word file or scan: the costly part)."""
        return not self.text and bool(self.original)

    def latest_job(self) -> Job | None:
        return self.jobs.order_by("-created_at").first()

    def latest_result(self) -> Result | None:
        return self.results.order_by("-version").first()


class JobState(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    # The rules' result is published (`final: false`); the job waits for its model questions (`JobPhase.LLM`).
    PROVISIONAL = "provisional", "Provisional"
    DONE = "done", "Done"
    NEEDS_REVIEW = "needs_review", "Needs review"
    FAILED = "failed", "Failed"


FINAL_STATES = (JobState.DONE, JobState.NEEDS_REVIEW, JobState.FAILED)


class JobPhase(models.TextChoices):
    """Which part of the pipeline a queued or running job is in: the rules (extraction to a provisional result,
    on the default queue) or the model's questions (to the final result, on the `llm` queue)."""

    RULES = "rules", "Rules"
    LLM = "llm", "LLM"


class Job(models.Model):
    """One pipeline run over a document; the database row, not the broker, is the source of truth."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="jobs")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="jobs")
    state = models.CharField(max_length=16, choices=JobState.choices, default=JobState.QUEUED, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)
    stage_timings = models.JSONField(default=dict, blank=True)
    artifacts = models.JSONField(default=dict, blank=True)
    review_reasons = models.JSONField(default=list, blank=True)
    degraded = models.BooleanField(default=False)
    error = models.JSONField(null=True, blank=True)
    phase = models.CharField(max_length=8, choices=JobPhase.choices, default=JobPhase.RULES)
    # Set when the model was unavailable for this job's questions: it waits (DOCGATE_LLM_WAIT_MAX_S) for it.
    llm_waiting_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["state", "queued_at"]),
            models.Index(fields=["state", "lease_expires_at"]),
            models.Index(fields=["state"], name="job_degraded", condition=models.Q(degraded=True)),  # for /metrics
            # The portal's job list (and its rows, polled every 2 s): one organisation's jobs, newest first.
            models.Index(fields=["organisation", "-created_at"], name="job_org_recent"),
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"job {self.id} ({self.state})"

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES


class Result(models.Model):
    """A versioned result for a document: version 1 from the pipeline, later versions from review."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="results")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="results")
    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="results")
    version = models.PositiveIntegerField()
    # False for the rules' provisional result that a job publishes before the model has answered.
    final = models.BooleanField(default=True)
    data = models.JSONField(default=dict)
    provenance = models.JSONField(default=dict)
    # The gate's decision (`data.gate.decision`) of a pipeline run's final result, blank on provisional and
    # reviewed versions: /metrics counts these without reading `data`.
    gate_decision = models.CharField(max_length=16, blank=True, default="")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["document", "version"], name="one_result_per_version")]
        indexes = [
            models.Index(
                fields=["created_at", "gate_decision"], name="result_gated", condition=~models.Q(gate_decision="")
            )
        ]
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"result v{self.version} of {self.document_id}"


class AuditEventQuerySet(models.QuerySet["AuditEvent"]):
    def update(self, **kwargs: Any) -> int:
        raise PermissionError("the audit log is append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class AuditEvent(models.Model):
    """An append-only record of who did what, with the state before and after."""

    organisation = models.ForeignKey(Organisation, on_delete=models.PROTECT, related_name="audit_events")
    actor_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT)
    actor_api_key = models.ForeignKey(ApiKey, null=True, blank=True, on_delete=models.PROTECT)
    actor_system = models.CharField(max_length=100, blank=True)
    action = models.CharField(max_length=64, db_index=True)
    object_type = models.CharField(max_length=64)
    object_id = models.CharField(max_length=64, db_index=True)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.action} {self.object_type}:{self.object_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError("the audit log is append-only")


class IdempotencyRecord(models.Model):
    """The first answer to a request carrying an Idempotency-Key, replayed for the same key and body."""

    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE)
    key = models.CharField(max_length=255)
    request_fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    # Indexed for beat's cleanup, which deletes records past DOCGATE_IDEMPOTENCY_TTL_S (`contracts.retention`).
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["organisation", "key"], name="one_record_per_key")]

    def __str__(self) -> str:
        return f"idempotency {self.key}"


class ReviewState(models.TextChoices):
    OPEN = "open", "Open"
    CLAIMED = "claimed", "Claimed"
    FINALIZED = "finalized", "Finalized"


class ReviewTask(models.Model):
    """A job that ended needs_review, waiting in its organisation's queue until a reviewer finalizes it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organisation = models.ForeignKey(Organisation, on_delete=models.CASCADE, related_name="review_tasks")
    job = models.OneToOneField(Job, on_delete=models.CASCADE, related_name="review_task")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="review_tasks")
    reasons = models.JSONField(default=list, blank=True)
    priority = models.IntegerField(default=0)
    # How unsure the models were of the result under review (1 - its lowest confidence): within a priority the
    # least sure come first, so that a reviewer's corrections teach the most.
    uncertainty = models.FloatField(default=0.0)
    state = models.CharField(max_length=16, choices=ReviewState.choices, default=ReviewState.OPEN)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claim_expires_at = models.DateTimeField(null=True, blank=True)
    response_text = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    finalized_at = models.DateTimeField(null=True, blank=True)
    finalized_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    final_result = models.ForeignKey(Result, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [
            models.Index(
                fields=["organisation", "state", "-priority", "-uncertainty", "created_at"], name="review_queue"
            ),
            models.Index(fields=["state", "created_at"], name="review_pending", condition=~models.Q(state="finalized")),
        ]
        ordering = ["-priority", "-uncertainty", "created_at"]

    def __str__(self) -> str:
        return f"review {self.id} ({self.state})"


class ReviewDecision(models.TextChoices):
    APPROVE = "approve", "Approve"
    CORRECT = "correct", "Correct"
    REJECT = "reject", "Reject"


class FindingDecision(models.Model):
    """A reviewer's verdict on one finding of the result under review; a later decision replaces it."""

    task = models.ForeignKey(ReviewTask, on_delete=models.CASCADE, related_name="decisions")
    finding_id = models.CharField(max_length=64)
    decision = models.CharField(max_length=16, choices=ReviewDecision.choices)
    corrected = models.JSONField(null=True, blank=True)
    note = models.TextField(blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["task", "finding_id"], name="one_decision_per_finding")]
        ordering = ["decided_at", "id"]

    def __str__(self) -> str:
        return f"{self.decision} {self.finding_id}"
