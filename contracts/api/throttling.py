"""DRF throttles over DocGate's request budgets: reads (GET) and document submissions, per API key or user."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from contracts.api.auth import request_api_key, request_user
from contracts.throttling import READ, SUBMIT, budget_spend, caller_budget_key


class BudgetThrottle(BaseThrottle):
    """Spend one request of the caller's budget in `scope`; DRF answers 429 with Retry-After past it."""

    scope = READ

    def __init__(self) -> None:
        self._wait: int | None = None

    def counts(self, request: Request) -> bool:
        return True

    def allow_request(self, request: Request, view: Any) -> bool:
        if not self.counts(request):
            return True
        caller = caller_budget_key(api_key=request_api_key(request), user=request_user(request))
        self._wait = budget_spend(scope=self.scope, caller=caller)
        return self._wait is None

    def wait(self) -> float | None:
        return self._wait


class ReadThrottle(BudgetThrottle):
    """The read budget: GET, HEAD and OPTIONS (other writes are reviewers' and admins' actions)."""

    scope = READ

    def counts(self, request: Request) -> bool:
        return request.method in SAFE_METHODS


class SubmitThrottle(BudgetThrottle):
    """The submission budget: every document submitted, accepted or not."""

    scope = SUBMIT
