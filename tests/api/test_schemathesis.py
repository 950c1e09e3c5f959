"""Property-based API fuzzing from the live OpenAPI schema: no generated request may produce a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.test import Client
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from tests.in_process import connection_kept

pytestmark = pytest.mark.django_db

# The schema the app serves (drf-spectacular), fetched and called in-process over WSGI. Loaded at import:
# schemathesis's lazy `from_fixture` loader does not run under pytest 9.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)
# The review queue, the cases' merge and split and a contract's key-term decisions answer reviewers, which no API
# key is: fuzzed again as Rita.
review_operations = schema.include(path_regex=r"^/api/v1/(reviews|cases|documents/[^/]+/terms)/")


@pytest.fixture
def acme_key(actors: Any) -> Iterator[dict[str, Any]]:
    """Acme's key: requests reach the views instead of stopping at authentication."""
    with connection_kept():
        yield {"headers": {"Authorization": f"Api-Key {actors.acme_key}"}}


@pytest.fixture
def rita_signed_in(actors: Any) -> Iterator[dict[str, Any]]:
    """Rita's session cookie and CSRF token, sent as the portal's own script sends them."""
    # The test client reconnects the connection-closing signal after each request: keep it off only afterwards.
    browser = Client(enforce_csrf_checks=True)
    token = browser.get("/accounts/login/").cookies["csrftoken"].value
    browser.force_login(actors.rita)
    with connection_kept():
        yield {
            "cookies": {"csrftoken": token, "sessionid": browser.cookies["sessionid"].value},
            "headers": {"X-CSRFToken": token},
        }


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case: Any, acme_key: dict[str, Any]) -> None:
    response = case.call_and_validate(checks=[not_a_server_error], **acme_key)
    assert response.status_code < 500


@review_operations.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_review_request_by_a_reviewer_gets_a_server_error(
    case: Any, rita_signed_in: dict[str, Any]
) -> None:
    # The routes let any 36 hex digits and dashes through as an id: most generated ids are not UUIDs at all.
    response = case.call_and_validate(checks=[not_a_server_error], **rita_signed_in)
    assert response.status_code < 500
