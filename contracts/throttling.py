"""Request budgets per API key and per portal user (and sign-in attempts per account name), counted in Django's
shared cache (one count for every web process): a fixed window per budget, so that counting is one atomic
increment where the cache has one (Redis)."""

from __future__ import annotations

import hashlib
import logging
import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger(__name__)

SUBMIT = "submit"
READ = "read"
LOGIN = "login"


def caller_budget_key(*, api_key: Any = None, user: Any = None) -> str | None:
    """Name whose budget a request spends: its API key's, else its signed-in user's; None for anonymous callers."""
    if api_key is not None:
        return f"key:{api_key.pk}"
    if user is not None and getattr(user, "is_authenticated", False) and user.pk is not None:
        return f"user:{user.pk}"
    return None


def sign_in_budget_key(username: str) -> str:
    """The budget a sign-in attempt spends: its account name's, however it is spelt (case, spaces), hashed so that
    no cache key carries a name someone typed."""
    return "account:" + hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]


def budget_rate(scope: str) -> tuple[int, int] | None:
    """The budget of `scope` (SUBMIT, READ or LOGIN) as (requests, window seconds); None where it is off."""
    rate: tuple[int, int] | None = getattr(settings, f"DOCGATE_THROTTLE_{scope.upper()}")
    return rate


def budget_spend(*, scope: str, caller: str | None, now: float | None = None) -> int | None:
    """Count one request of `caller` against its `scope` budget; return None while within it, else the whole
    seconds until the window ends (for Retry-After)."""
    rate = budget_rate(scope)
    if rate is None or caller is None:
        return None
    allowed, window_s = rate
    now = time.time() if now is None else now
    window = int(now // window_s)
    key = f"throttle:{scope}:{caller}:{window}"
    try:
        cache.add(key, 0, timeout=window_s + 1)
        try:
            used = cache.incr(key)
        except ValueError:  # the window's count expired or was culled between add and incr: start it again
            cache.add(key, 1, timeout=window_s + 1)
            used = 1
    except Exception:  # an unreachable cache (Redis down) must not turn every request into a 500
        logger.warning("request budget %s not counted: the cache is unavailable", scope, exc_info=True)
        return None
    if used <= allowed:
        return None
    return max(1, math.ceil((window + 1) * window_s - now))
