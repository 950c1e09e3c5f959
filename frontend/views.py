"""Portal pages: home, organisation switcher, submit (uploads and tickets), jobs, result."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from contracts.intake.extraction import FILE_EXTENSIONS
from contracts.intake.sandbox import converter_status
from contracts.intake.submission import IntakeError, Submission, document_submit
from contracts.models import Document, DocumentKind, DocumentSource, Job, JobState, Membership, Result
from contracts.rerun import RERUNNABLE_REASON, RerunRefused, job_llm_rerun
from contracts.tenancy.personal_data import documents_matching_masked, latest_personal_findings, result_data_masked
from contracts.throttling import READ, SUBMIT, budget_spend, caller_budget_key
from frontend.access import admin_required, may_see_pii, member_required, org_of
from frontend.deadlines import deadline_context
from frontend.forms import JobFilterForm, OrganisationSwitchForm, TicketForm
from frontend.gate_view import gate_view
from frontend.highlight import finding_display, highlight_html, pii_masked

JOBS_PER_PAGE = 50


def home(request: HttpRequest) -> HttpResponse:
    """Signed in: straight to the jobs list; otherwise what DocGate is and where to sign in."""
    if request.user.is_authenticated:
        return redirect("jobs")
    return render(request, "frontend/home.html")


@require_POST
def organisation_switch(request: HttpRequest) -> HttpResponse:
    """Act for another of the user's organisations from now on (stored in the session)."""
    if not request.user.is_authenticated:
        return redirect("login")
    # Through a form: a raw value with a NUL byte would reach PostgreSQL, which refuses it (DataError, 500).
    form = OrganisationSwitchForm(request.POST)
    slug = form.cleaned_data["organisation"] if form.is_valid() else None
    if slug and Membership.objects.filter(user=request.user, organisation__slug=slug).exists():
        request.session["organisation_slug"] = slug
    target = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
        target = reverse("jobs")
    # A URL as given, never a view name to reverse: `next=jobs` must not be looked up as one (NoReverseMatch, 500).
    return HttpResponseRedirect(target)


@member_required
def submit(request: HttpRequest) -> HttpResponse:
    """Drop contracts (uploaded one request per file by the page's script) or enter a ticket."""
    form = TicketForm(request.POST or None)
    wait = _submission_wait(request) if request.method == "POST" else None
    if wait is not None:
        form.add_error(None, _throttled_message(wait))
        response = render(request, "frontend/submit.html", {"form": form}, status=429)
        response["Retry-After"] = str(wait)
        return response
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        metadata = {name: data[name] for name in ("channel", "region") if data[name]}
        if data["received_at"] is not None:
            metadata["received_at"] = data["received_at"].isoformat()
        submission = Submission(
            kind=DocumentKind.TICKET,
            source=DocumentSource.PORTAL,
            text=data["text"],
            title=data["title"],
            reference=data["reference"],
            metadata=metadata,
        )
        try:
            outcome = document_submit(organisation=org_of(request), submission=submission, user=request.user)
        except IntakeError as exc:
            form.add_error("text", exc.message)
        else:
            if outcome.duplicate:
                messages.info(request, _("This ticket was already submitted; showing the existing one."))
            return redirect("result", document_id=outcome.document.pk)
    return render(request, "frontend/submit.html", {"form": form, **_readable_formats()})


FORMAT_NAMES = {
    None: _("Text, Word (.docx) and PDF, scanned pages included"),
    "office": _("Legacy Word, WPS, RTF and OpenDocument"),
    "ocr": _("Scans and photos"),
}


def _readable_formats() -> dict[str, Any]:
    """The file types the upload reads, grouped as people know them, with whether this installation can read them
    (a converter that is missing is said, and its types are left out of the file chooser)."""
    formats: list[dict[str, Any]] = []
    accept: list[str] = []
    for converter, extensions in FILE_EXTENSIONS.items():
        state = converter_status(converter) if converter is not None else None
        available = state is None or state.available
        formats.append({"name": FORMAT_NAMES[converter], "extensions": " ".join(extensions), "available": available})
        if available:
            accept += extensions
    return {"formats": formats, "accept": ",".join(accept)}


def _submission_wait(request: HttpRequest) -> int | None:
    """Spend one of the user's submissions (the budget API submissions share); the seconds to wait past it."""
    return budget_spend(scope=SUBMIT, caller=caller_budget_key(user=request.user))


def _throttled_message(wait: int) -> str:
    return _("Too many submissions. Try again in %(n)s seconds.") % {"n": wait}


@require_POST
@member_required
def upload(request: HttpRequest) -> JsonResponse:
    """Accept one contract file (multipart `file`); answer JSON with the document's page or the refusal."""
    # A body past the limit, or with a malformed Content-Length, was refused by RequestBodyLimitMiddleware.
    wait = _submission_wait(request)
    if wait is not None:
        refusal = JsonResponse({"error": {"code": "throttled", "message": _throttled_message(wait)}}, status=429)
        refusal["Retry-After"] = str(wait)
        return refusal
    uploaded = request.FILES.get("file")
    if uploaded is None:
        return JsonResponse({"error": {"code": "no_file", "message": _("No file was sent.")}}, status=400)
    name = uploaded.name or ""
    submission = Submission(
        kind=DocumentKind.CONTRACT, source=DocumentSource.PORTAL, data=uploaded.read(), original_name=name, title=name
    )
    try:
        outcome = document_submit(organisation=org_of(request), submission=submission, user=request.user)
    except IntakeError as exc:
        return JsonResponse({"error": {"code": exc.code, "message": exc.message}}, status=exc.status)
    document = outcome.document
    return JsonResponse(
        {
            "document": str(document.pk),
            "job": str(outcome.job.pk),
            "state": outcome.job.state,
            "duplicate": outcome.duplicate,
            "url": reverse("result", kwargs={"document_id": document.pk}),
        },
        status=200 if outcome.duplicate else 201,
    )


def _jobs_filtered(request: HttpRequest) -> tuple[JobFilterForm, QuerySet[Job]]:
    form = JobFilterForm(request.GET or None)
    jobs = Job.objects.filter(organisation=org_of(request)).select_related("document")
    if not may_see_pii(request):  # a row may show the start of the text, masked by the latest result's findings
        jobs = jobs.annotate(masking_findings=latest_personal_findings("document"))
    if form.is_valid():
        data = form.cleaned_data
        if data["state"]:
            jobs = jobs.filter(state=data["state"])
        if data["kind"]:
            jobs = jobs.filter(document__kind=data["kind"])
        if data["waiting"]:
            jobs = jobs.filter(llm_waiting_since__isnull=False, state__in=[JobState.PROVISIONAL, JobState.RUNNING])
        if data["q"]:
            jobs = jobs.filter(_search(request, data["q"]))
    return form, jobs.order_by("-created_at")


def _named(q: str, document: str = "document__") -> Q:
    return (
        Q(**{f"{document}title__icontains": q})
        | Q(**{f"{document}reference__icontains": q})
        | Q(**{f"{document}original_name__icontains": q})
    )


def _search(request: HttpRequest, q: str) -> Q:
    """Jobs whose document's title, reference, file name or text holds q: the text as the user may see it, so that
    a search is no oracle for the personal data masked for them."""
    if may_see_pii(request):
        return _named(q) | Q(document__text__icontains=q)
    text_only = Document.objects.filter(organisation=org_of(request)).exclude(_named(q, document=""))
    return _named(q) | Q(document_id__in=documents_matching_masked(text_only, q))


def read_refused(request: HttpRequest) -> HttpResponse | None:
    """Spend one of the user's reads (DOCGATE_THROTTLE_READ, shared with the API); past the budget, the 429."""
    wait = budget_spend(scope=READ, caller=caller_budget_key(user=request.user))
    if wait is None:
        return None
    message = _("Too many requests. Try again in %(n)s seconds.") % {"n": wait}
    response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(wait)
    return response


@require_GET
@member_required
def jobs(request: HttpRequest) -> HttpResponse:
    """The organisation's jobs with filters and search; the rows refresh themselves while any is unfinished. Each
    request spends one of the user's reads (DOCGATE_THROTTLE_READ, shared with the API): a search reads every
    document's text."""
    refused = read_refused(request)
    if refused is not None:
        return refused
    form, selected = _jobs_filtered(request)
    page = Paginator(selected, JOBS_PER_PAGE).get_page(request.GET.get("page"))
    template = "frontend/_job_rows.html" if request.GET.get("partial") == "rows" else "frontend/jobs.html"
    query = request.GET.copy()
    query.pop("page", None)
    query.pop("partial", None)
    return render(request, template, {"form": form, "page": page, "query": query.urlencode()})


def result_context(request: HttpRequest, document: Document, result: Result | None) -> dict[str, Any]:
    show_pii = may_see_pii(request)
    stored = result.data if result is not None else {}
    data = stored if show_pii else result_data_masked(stored)  # what the API answers this user
    findings = [f for f in data.get("findings", []) if isinstance(f, dict)]
    text = document.text if show_pii else pii_masked(document.text, stored.get("findings") or [])
    return {
        "show_pii": show_pii,
        "text_html": highlight_html(text, findings),
        "findings": [finding_display(f, show_pii=show_pii) for f in findings],
        "rejected": [
            finding_display(f, show_pii=show_pii) for f in data.get("rejected_findings") or [] if isinstance(f, dict)
        ],
        "data": data,
        "gate_view": gate_view(data.get("gate"), document.organisation.slug),
    }


@require_GET
@member_required
def result(request: HttpRequest, document_id: str) -> HttpResponse:
    """The original text with findings highlighted, the gate, the response, provenance and all versions."""
    document = get_object_or_404(Document, pk=document_id, organisation=org_of(request))
    versions = list(document.results.order_by("-version"))
    chosen = versions[0] if versions else None
    if request.GET.get("v"):
        chosen = next((r for r in versions if str(r.version) == request.GET["v"]), None)
        if chosen is None:
            raise Http404("no such version")
    job = document.latest_job()
    context = {
        "document": document,
        "job": job,
        "result": chosen,
        "versions": versions,
        "is_latest": chosen is not None and chosen == versions[0],
        "polling": job is not None and not job.is_final,
        "rerunnable": job is not None
        and job.state == JobState.NEEDS_REVIEW
        and RERUNNABLE_REASON in job.review_reasons,
        **result_context(request, document, chosen),
        **deadline_context(document),
    }
    return render(request, "frontend/result.html", context)


@require_POST
@admin_required
def llm_rerun(request: HttpRequest, job_id: str) -> HttpResponse:
    """An admin sends a job that went to review for want of the model back to it (a new version follows)."""
    job = get_object_or_404(Job, pk=job_id, organisation=org_of(request))
    try:
        job_llm_rerun(job_id=job.pk, organisation=org_of(request), user=request.user)
    except RerunRefused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The job was sent back to the model; its new result will appear here."))
    return redirect("result", document_id=job.document_id)
