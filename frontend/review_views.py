"""Review queue pages: the queue by priority, one task side by side, and its actions (each calls a service)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from contracts.models import AuditEvent, ReviewDecision, ReviewState, ReviewTask
from contracts.review.response_check import review_response_problems
from contracts.review.workflow import (
    ReviewError,
    review_finding_decide,
    review_response_edit,
    review_task_claim,
    review_task_finalize,
    review_task_release,
)
from frontend.access import org_of, reviewer_required
from frontend.forms import DecisionForm, ResponseForm
from frontend.views import result_context


@require_GET
@reviewer_required
def queue(request: HttpRequest) -> HttpResponse:
    """Open and claimed tasks, highest priority first, then the least sure, then the oldest."""
    show = request.GET.get("show", "open")
    tasks = ReviewTask.objects.filter(organisation=org_of(request)).select_related("document", "claimed_by")
    if show == "finalized":
        tasks = tasks.filter(state=ReviewState.FINALIZED).order_by("-finalized_at")
    else:
        tasks = tasks.exclude(state=ReviewState.FINALIZED).order_by("-priority", "-uncertainty", "created_at")
    return render(request, "frontend/review_queue.html", {"tasks": tasks[:200], "show": show})


@require_GET
@reviewer_required
def task(request: HttpRequest, task_id: str) -> HttpResponse:
    """One task: the text beside its findings, per-finding decisions, the response, and the audit trail."""
    item = get_object_or_404(
        ReviewTask.objects.select_related("document", "job", "claimed_by"), pk=task_id, organisation=org_of(request)
    )
    document = item.document
    latest = document.latest_result()
    audit = AuditEvent.objects.filter(
        Q(object_id=str(item.pk)) | Q(object_id=str(item.job_id)) | Q(object_id=str(document.pk)),
        organisation=org_of(request),
    ).select_related("actor_user", "actor_api_key")
    context = {
        "task": item,
        "document": document,
        "result": latest,
        "decisions": {d.finding_id: d for d in item.decisions.all()},
        "mine": item.state == ReviewState.CLAIMED and item.claimed_by_id == request.user.pk,
        "response_form": ResponseForm(initial={"text": item.response_text}),
        "response_problems": review_response_problems(item),
        "audit": audit,
        **result_context(request, document, latest),
    }
    return render(request, "frontend/review_task.html", context)


def _task_own(request: HttpRequest, task_id: str) -> None:
    """Raise Http404 unless the task is the organisation's: an action on any other answers 404, not a redirect."""
    get_object_or_404(ReviewTask.objects.only("pk"), pk=task_id, organisation=org_of(request))


def _refusal_show(request: HttpRequest, exc: ReviewError) -> None:
    """Show a review service's refusal as a message on the task page; a 404 (the task went away meanwhile, as when
    a re-run withdrew it) has no page to go back to, so it is raised as one."""
    if exc.status == 404:
        raise Http404(exc.message) from exc
    messages.error(request, exc.message)


def _act(request: HttpRequest, task_id: str, action: Callable[[], object], done: str | None = None) -> HttpResponse:
    """Run one review service; show its refusal as a message; back to the task page."""
    try:
        action()
    except ReviewError as exc:
        _refusal_show(request, exc)
    else:
        if done:
            messages.success(request, done)
    return redirect("review_task", task_id=task_id)


@require_POST
@reviewer_required
def claim(request: HttpRequest, task_id: str) -> HttpResponse:
    _task_own(request, task_id)
    return _act(
        request, task_id, lambda: review_task_claim(task_id=task_id, user=request.user, organisation=org_of(request))
    )


@require_POST
@reviewer_required
def release(request: HttpRequest, task_id: str) -> HttpResponse:
    _task_own(request, task_id)
    return _act(
        request, task_id, lambda: review_task_release(task_id=task_id, user=request.user, organisation=org_of(request))
    )


@require_POST
@reviewer_required
def decide(request: HttpRequest, task_id: str) -> HttpResponse:
    """approve / correct (a new label) / reject one finding."""
    _task_own(request, task_id)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        messages.error(request, str(form.errors))
        return redirect("review_task", task_id=task_id)
    data = form.cleaned_data
    corrected = {"label": data["label"]} if data["decision"] == ReviewDecision.CORRECT and data["label"] else None
    return _act(
        request,
        task_id,
        lambda: review_finding_decide(
            task_id=task_id,
            user=request.user,
            organisation=org_of(request),
            finding_id=data["finding_id"],
            decision=data["decision"],
            corrected=corrected,
            note=data["note"],
        ),
    )


@require_POST
@reviewer_required
def response(request: HttpRequest, task_id: str) -> HttpResponse:
    _task_own(request, task_id)
    form = ResponseForm(request.POST)
    if not form.is_valid():  # refused, never saved as empty: a too-long draft must not wipe the response
        messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))
        return redirect("review_task", task_id=task_id)
    text = form.cleaned_data["text"]
    return _act(
        request,
        task_id,
        lambda: review_response_edit(task_id=task_id, user=request.user, organisation=org_of(request), text=text),
    )


@require_POST
@reviewer_required
def finalize(request: HttpRequest, task_id: str) -> HttpResponse:
    _task_own(request, task_id)
    try:
        result = review_task_finalize(task_id=task_id, user=request.user, organisation=org_of(request))
    except ReviewError as exc:
        _refusal_show(request, exc)
        return redirect("review_task", task_id=task_id)
    return redirect(reverse("result", kwargs={"document_id": result.document_id}) + f"?v={result.version}")
