"""Property-based API fuzzing from the live OpenAPI schema: no generated request may produce a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from config.wsgi import application
from tests.in_process import connection_kept

pytestmark = pytest.mark.django_db

# The schema the app serves (drf-spectacular), fetched and called in-process over WSGI. Loaded at import:
# schemathesis's lazy `from_fixture` loader does not run under pytest 9.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)


@pytest.fixture(autouse=True)
def _keep_test_connection() -> Iterator[None]:
    with connection_kept():
        yield


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_generated_request_gets_a_server_error(case: Any, actors: Any) -> None:
    # Acme's key: requests reach the views instead of stopping at authentication.
    response = case.call_and_validate(
        headers={"Authorization": f"Api-Key {actors.acme_key}"}, checks=[not_a_server_error]
    )
    assert response.status_code < 500
