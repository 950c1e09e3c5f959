"""Intake: validate, de-duplicate, store the document and its job, enqueue after commit.

A plain-text file is decoded here (decoding is how it is validated); a PDF or Word file is only checked cheaply
(its structure, size and page count) and stored: the worker's extract stage reads its text, off the request path.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from contracts.audit import audit_record
from contracts.broker import job_send_on_commit
from contracts.intake.extraction import ExtractionError, ExtractionLimits, intake_check, sniff_content_type
from contracts.models import ApiKey, Document, DocumentKind, DocumentSource, Job, JobPhase, Organisation
from contracts.refusals import Refused
from contracts.storable import UNSTORABLE_MESSAGE, json_storable

logger = logging.getLogger(__name__)


class IntakeError(Refused):
    """A submission DocGate refuses; carries an HTTP status and a stable code."""


@dataclass(frozen=True)
class Submission:
    """One document as a caller sent it: exactly one of `data` (file bytes) or `text`."""

    kind: str
    source: str
    data: bytes | None = None
    text: str | None = None
    original_name: str = ""
    title: str = ""
    reference: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IntakeOutcome:
    """The stored document, its job, and whether an identical document already existed."""

    document: Document
    job: Job
    duplicate: bool


def extraction_limits() -> ExtractionLimits:
    """Return the configured extraction bounds."""
    return ExtractionLimits(
        max_unzipped_bytes=settings.DOCGATE_MAX_UNZIPPED_BYTES,
        max_pdf_pages=settings.DOCGATE_MAX_PDF_PAGES,
        max_text_chars=settings.DOCGATE_MAX_TEXT_CHARS,
        conversion_timeout_s=settings.DOCGATE_CONVERSION_TIMEOUT_S,
    )


@dataclass(frozen=True)
class Validated:
    """A submission that passed intake: its bytes, its text ("" until the worker reads a PDF or Word file), the
    content type and, for a plain-text file, the encoding and how sure it is."""

    raw: bytes
    text: str
    content_type: str
    encoding: str
    encoding_confidence: float | None = None


def submission_validate(submission: Submission) -> Validated:
    """Check a submission cheaply (a PDF or Word file's text is read later, by the worker)."""
    if submission.kind not in DocumentKind.values:
        raise IntakeError("unknown_kind", f"kind must be one of {', '.join(DocumentKind.values)}.")
    if submission.source not in DocumentSource.values:
        raise IntakeError("unknown_source", "source must be api or portal.")
    if (submission.data is None) == (submission.text is None):
        raise IntakeError("no_content", "Send either a file or a text, not both and not neither.")
    if not json_storable(submission.metadata):
        raise IntakeError("invalid_metadata", f"metadata {UNSTORABLE_MESSAGE}.")
    if submission.text is not None:
        text = text_sanitize(submission.text)
        if not text.strip():
            raise IntakeError("empty_text", "The text is empty.")
        if len(text) > settings.DOCGATE_MAX_TEXT_CHARS:
            raise IntakeError("text_too_long", f"The text exceeds {settings.DOCGATE_MAX_TEXT_CHARS} characters.", 413)
        return Validated(text.encode("utf-8"), text, "text/plain", "utf-8")
    assert submission.data is not None
    if len(submission.data) > settings.DOCGATE_MAX_UPLOAD_BYTES:
        raise IntakeError(
            "file_too_large", f"The file exceeds the limit of {settings.DOCGATE_MAX_UPLOAD_BYTES} bytes.", 413
        )
    try:
        checked = intake_check(submission.data, extraction_limits())
    except ExtractionError as exc:
        raise IntakeError(exc.code, exc.message, refusal_status(exc)) from exc
    if checked is None:
        return Validated(submission.data, "", sniff_content_type(submission.data), "")
    return Validated(
        submission.data, text_sanitize(checked.text), checked.content_type, checked.encoding, checked.confidence
    )


def refusal_status(exc: ExtractionError) -> int:
    """The HTTP status of an extraction refusal: 413 for what is too big, 422 for what cannot be read."""
    return 413 if exc.code in {"archive_too_large", "text_too_long", "too_many_pages"} else 422


def text_sanitize(text: str) -> str:
    """Replace lone surrogates with U+FFFD and drop NUL, which no database text column can hold."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace").replace("\x00", "")


def submission_fingerprint(submission: Submission) -> str:
    """Return a digest of what a submission means (not its wire framing), for Idempotency-Key checks."""
    digest = hashlib.sha256()
    content = submission.data if submission.data is not None else (submission.text or "").encode("utf-8", "replace")
    for part in (
        submission.kind,
        submission.title,
        submission.reference,
        submission.original_name,
        repr(sorted(submission.metadata.items())),
        hashlib.sha256(content).hexdigest(),
    ):
        digest.update(part.encode("utf-8", "replace") + b"\x1f")
    return digest.hexdigest()


def document_submit(
    *,
    organisation: Organisation,
    submission: Submission,
    user: Any = None,
    api_key: ApiKey | None = None,
) -> IntakeOutcome:
    """Store a new document with a queued job, or return the existing one with the same checksum."""
    validated = submission_validate(submission)
    raw = validated.raw
    sha256 = hashlib.sha256(raw).hexdigest()
    # No look-up first: the unique (organisation, sha256) index finds a duplicate in the insert itself, which saves
    # a round trip on every new document (duplicates are the rare case, answered below).
    document = Document(
        organisation=organisation,
        kind=submission.kind,
        source=submission.source,
        title=submission.title[:300],
        original_name=submission.original_name[:255],
        content_type=validated.content_type,
        size_bytes=len(raw),
        sha256=sha256,
        encoding=validated.encoding,
        encoding_confidence=validated.encoding_confidence,
        text=validated.text,
        metadata=submission.metadata,
        reference=submission.reference[:200],
        submitted_by=user if getattr(user, "is_authenticated", False) else None,
        api_key=api_key,
    )
    try:
        with transaction.atomic():
            if submission.data is not None:
                document.original.save("original.bin", ContentFile(raw), save=False)
            document.save()
            job = Job.objects.create(organisation=organisation, document=document)
            audit_record(
                organisation=organisation,
                action="document.submitted",
                obj=document,
                user=user,
                api_key=api_key,
                after={"kind": document.kind, "sha256": sha256, "size_bytes": len(raw), "job": str(job.id)},
            )
            job_send_on_commit(str(job.id), JobPhase.RULES, converts=document.text_pending)
    except IntegrityError:
        _original_delete(document)
        # The same bytes were stored before (or by a concurrent request, first): answer with that document.
        existing = _existing_outcome(organisation, sha256)
        if existing is None:
            raise
        return existing
    except BaseException:
        _original_delete(document)
        raise
    return IntakeOutcome(document=document, job=job, duplicate=False)


def _original_delete(document: Document) -> None:
    """Remove a stored original whose database row was rolled back, so nothing half-stored remains."""
    if document.original and document.original.name:
        document.original.storage.delete(document.original.name)


def _existing_outcome(organisation: Organisation, sha256: str) -> IntakeOutcome | None:
    document = Document.objects.filter(organisation=organisation, sha256=sha256).first()
    if document is None:
        return None
    job = document.latest_job()
    assert job is not None, "every stored document has a job"
    return IntakeOutcome(document=document, job=job, duplicate=True)
