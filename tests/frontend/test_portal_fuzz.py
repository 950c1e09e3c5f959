"""Property-based fuzzing of the portal's forms: no generated request, by anyone, may produce a 5xx.

The portal has no schema of its own; portal_schema.py describes its routes from the URLconf and the views' form
classes. Each operation is fuzzed as an anonymous visitor, a submitter (Alice), a reviewer (Rita) and an admin
(Ada), all of Acme. Paths name Acme's rows, Globex's rows and random ids; Globex's and random ones must answer
404 or 403 (anonymous: the login page), never the object and never a server error.

CSRF stays on: each actor fetches a token from the login page and sends it as Django's `X-CSRFToken` header with
its cookie, as the portal's own script does for uploads, so that the middleware's real check runs on every POST.
"""

from __future__ import annotations

import hashlib
import os
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from contracts.models import ApiKey, Document, Job, JobState, Membership, Organisation, Result, ReviewTask, Role
from contracts.review.workflow import review_task_claim
from tests.frontend import portal_schema
from tests.frontend.portal_schema import FORM_ROUTES, NOT_FUZZED, portal_routes
from tests.in_process import connection_kept

pytestmark = pytest.mark.django_db

schema = schemathesis.openapi.from_dict(portal_schema.portal_openapi())
schema.app = application

TICKET = "我家小区门口的垃圾站臭气熏天，已经反映三次了，请尽快处理。物业说要收5000元清运费。"
FINDINGS = [
    {"id": "F1", "kind": "clause", "label": "违约金", "span": [0, 6], "confidence": 0.55, "source": "rule"},
    {"id": "F2", "kind": "ticket_category", "label": "城乡建设", "confidence": 0.41, "source": "rule"},
    {"id": "F3", "kind": "entity", "label": "MONEY", "span": [34, 39], "text": "5000元", "source": "rule"},
]


@dataclass
class Visitor:
    """Who sends the fuzzed requests: their role in Acme (None: anonymous) and what their browser sends along."""

    role: str | None
    cookies: dict[str, str]
    headers: dict[str, str]


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    """Seven users a test, each hashed with the production work factor, would outlast the fuzzing itself."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _public_dns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Webhook URLs are vetted by resolving their host: answer every valid name with one public address, offline."""

    def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        str(host).encode("idna")  # the real resolver's refusal of names IDNA cannot encode (UnicodeError)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", int(port or 443)))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)


def _reviewed_ticket(organisation: Organisation, document_id: Any, job_id: Any, task_id: Any) -> ReviewTask:
    """A ticket whose job went to review for want of the model, with result v1 (F1..F3) and an open task."""
    document = Document.objects.create(
        pk=document_id,
        organisation=organisation,
        kind="ticket",
        source="api",
        content_type="text/plain",
        size_bytes=len(TICKET.encode()),
        sha256=hashlib.sha256(TICKET.encode() + organisation.slug.encode()).hexdigest(),
        text=TICKET,
    )
    reasons = ["llm_unavailable"]
    job = Job.objects.create(
        pk=job_id, organisation=organisation, document=document, state=JobState.NEEDS_REVIEW, review_reasons=reasons
    )
    Result.objects.create(
        organisation=organisation,
        document=document,
        job=job,
        version=1,
        data={"kind": "ticket", "findings": FINDINGS, "review_reasons": reasons, "suggested_response": "您好。"},
    )
    return ReviewTask.objects.create(pk=task_id, organisation=organisation, job=job, document=document, reasons=reasons)


def _member(pk: int, username: str, organisation: Organisation, role: str) -> Any:
    user = get_user_model().objects.create_user(username, password=f"{username}-password-1")
    Membership.objects.create(pk=pk, user=user, organisation=organisation, role=role)
    return user


@pytest.fixture
def world(actors: Any) -> dict[str, Any]:
    """Acme and Globex as in conftest, plus Ada (Acme's admin) and the rows with the schema's fixed keys."""
    ada = _member(910_010, "ada", actors.acme, Role.ADMIN)
    _member(portal_schema.ACME_MEMBERSHIP, "sam", actors.acme, Role.SUBMITTER)
    _member(portal_schema.GLOBEX_MEMBERSHIP, "gus", actors.globex, Role.SUBMITTER)
    for pk, organisation in ((portal_schema.ACME_KEY, actors.acme), (portal_schema.GLOBEX_KEY, actors.globex)):
        ApiKey.objects.create(pk=pk, organisation=organisation, name="fuzz", prefix=f"fz{pk}", key_hash=f"{pk:064d}")
    _reviewed_ticket(actors.acme, portal_schema.ACME_DOCUMENT, portal_schema.ACME_JOB, portal_schema.ACME_TASK)
    _reviewed_ticket(actors.globex, portal_schema.GLOBEX_DOCUMENT, portal_schema.GLOBEX_JOB, portal_schema.GLOBEX_TASK)
    return {Role.SUBMITTER: actors.alice, Role.REVIEWER: actors.rita, Role.ADMIN: ada}


@pytest.fixture(
    params=[None, Role.SUBMITTER, Role.REVIEWER, Role.ADMIN], ids=["anonymous", "submitter", "reviewer", "admin"]
)
def visitor(request: pytest.FixtureRequest, world: dict[str, Any]) -> Iterator[Visitor]:
    """A browser with a CSRF token from the login page and, unless anonymous, a signed-in session."""
    # Django's test client reconnects the connection-closing signal after each request: keep it off only afterwards.
    browser = Client(enforce_csrf_checks=True)
    token = browser.get("/accounts/login/").cookies["csrftoken"].value
    cookies = {"csrftoken": token}
    role = request.param
    if role is not None:
        user = world[role]
        browser.force_login(user)
        cookies["sessionid"] = browser.cookies["sessionid"].value
        if role != Role.SUBMITTER:  # a reviewer's work needs a live claim; the fuzzer may release or finalize it
            acme = Organisation.objects.get(slug="acme")
            review_task_claim(task_id=portal_schema.ACME_TASK, user=user, organisation=acme)
    with connection_kept():
        yield Visitor(role, cookies, {"X-CSRFToken": token})


def _foreign(case: Any) -> bool:
    """The path names a row Acme does not hold (Globex's or none at all); a finding is named within its document
    (F1, F2 …), not a row of an organisation."""
    parameters = (case.path_parameters or {}).items()
    ids = {name: value for name, value in parameters if name.endswith("_id") and name != "finding_id"}
    return any(str(value) not in portal_schema.ACME_IDS for value in ids.values())


# Twelve examples an operation and visitor keep the run under a minute; raise it locally to hunt deeper.
EXAMPLES = int(os.environ.get("DOCGATE_FUZZ_EXAMPLES", "12"))


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_form_request_gets_a_server_error(case: Any, visitor: Visitor) -> None:
    response = case.call_and_validate(cookies=visitor.cookies, headers=visitor.headers, checks=[not_a_server_error])
    assert response.status_code < 500
    if _foreign(case):
        if visitor.role is None and response.status_code == 302:
            assert response.headers["location"][0].startswith("/accounts/login/")
        else:
            assert response.status_code in (403, 404), f"{case.path} answered {response.status_code}"


@pytest.mark.parametrize("visitor", [Role.ADMIN], indirect=True)
def test_the_fuzzed_posts_pass_the_real_csrf_check_only_with_the_token(visitor: Visitor) -> None:
    operation = schema["/organisation/keys/"]["POST"]
    case = operation.Case(body={"name": "ci"}, media_type=portal_schema.URLENCODED)
    assert case.call(cookies=visitor.cookies).status_code == 403
    assert case.call(cookies=visitor.cookies, headers=visitor.headers).status_code == 302
    assert ApiKey.objects.filter(name="ci").count() == 1


def test_every_portal_route_is_fuzzed_or_excused() -> None:
    names = {route.name for route in portal_routes()}
    forgotten = names - FORM_ROUTES.keys() - NOT_FUZZED.keys()
    assert not forgotten, f"routes neither described in portal_schema.FORM_ROUTES nor excused: {sorted(forgotten)}"
    assert not FORM_ROUTES.keys() - names, "portal_schema describes routes that no longer exist"


# What the fuzzing found, pinned as plain examples.


def test_a_next_that_reads_like_a_view_name_is_followed_as_a_url(client: Any, world: dict[str, Any]) -> None:
    client.force_login(world[Role.SUBMITTER])
    response = client.post("/organisation/switch/", {"organisation": "acme", "next": "jobs"})
    assert response.status_code == 302 and response["Location"] == "jobs"


def test_an_organisation_slug_with_a_nul_byte_switches_nothing(client: Any, world: dict[str, Any]) -> None:
    client.force_login(world[Role.SUBMITTER])
    response = client.post("/organisation/switch/", {"organisation": "ac\x00me"})
    assert response.status_code == 302 and response["Location"] == "/jobs/"
    assert "organisation_slug" not in client.session


@pytest.mark.parametrize("action", ["claim", "release", "decide", "response", "finalize"])
def test_review_actions_on_another_organisations_task_answer_404(
    client: Any, world: dict[str, Any], action: str
) -> None:
    client.force_login(world[Role.REVIEWER])
    data = {"finding_id": "F1", "decision": "approve", "text": "好"}
    for task in (portal_schema.GLOBEX_TASK, uuid.uuid4()):
        assert client.post(f"/review/{task}/{action}/", data).status_code == 404


def test_a_response_over_the_limit_is_refused_and_the_draft_kept(client: Any, world: dict[str, Any]) -> None:
    rita = world[Role.REVIEWER]
    client.force_login(rita)
    task = portal_schema.ACME_TASK
    assert client.post(f"/review/{task}/claim/").status_code == 302
    client.post(f"/review/{task}/response/", {"text": "已转交城管部门处理。"})
    response = client.post(f"/review/{task}/response/", {"text": "长" * 20_001}, follow=True)
    assert ReviewTask.objects.get(pk=task).response_text == "已转交城管部门处理。"
    assert "20000" in response.content.decode() or "20,000" in response.content.decode()


@pytest.mark.parametrize("action", ["", "claim/", "release/", "decide/", "response/", "finalize/"])
def test_review_actions_on_an_id_that_only_looks_like_a_uuid_answer_404(
    client: Any, world: dict[str, Any], action: str
) -> None:
    # The API's routes let any 36 hex digits and dashes through (review 26, item 6); the portal's <uuid:> does not.
    client.force_login(world[Role.REVIEWER])
    data = {"finding_id": "F1", "decision": "approve", "text": "好"}
    for task in ("0" * 36, "-" * 36, "0A000000-0000-4000-8000-00000000000G"):
        method = client.get if not action else client.post
        assert method(f"/review/{task}/{action}", data).status_code == 404
