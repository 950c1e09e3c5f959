"""A thread-safe circuit breaker: stop calling a server that keeps failing, probe it again after a cool-down."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

BreakerState = Literal["closed", "open", "half_open"]


@dataclass(frozen=True)
class BreakerSnapshot:
    """The breaker's state and counters at one moment (for /readyz and metrics)."""

    state: BreakerState
    consecutive_failures: int
    failures: int
    successes: int
    openings: int
    rejections: int


class CircuitBreaker:
    """closed → open after `failure_threshold` consecutive failures → half_open after `cooldown_s`, which lets
    exactly one trial call through → closed on its success, open again on its failure."""

    def __init__(
        self, failure_threshold: int, cooldown_s: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if failure_threshold < 1 or cooldown_s < 0:
            raise ValueError("failure_threshold must be >= 1 and cooldown_s >= 0")
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._state: BreakerState = "closed"
        self._opened_at = 0.0
        self._trial_in_flight = False
        self._consecutive_failures = 0
        self._failures = 0
        self._successes = 0
        self._openings = 0
        self._rejections = 0

    def _current_state(self) -> BreakerState:
        """The state with the cool-down applied; the caller holds the lock."""
        if self._state == "open" and self._clock() - self._opened_at >= self.cooldown_s:
            self._state = "half_open"
            self._trial_in_flight = False
        return self._state

    @property
    def state(self) -> BreakerState:
        """closed, open or half_open, as a call made now would see it."""
        with self._lock:
            return self._current_state()

    def allow(self) -> bool:
        """Whether a call may go out now; in half_open only one trial call is admitted until it reports back."""
        with self._lock:
            state = self._current_state()
            if state == "closed":
                return True
            if state == "half_open" and not self._trial_in_flight:
                self._trial_in_flight = True
                return True
            self._rejections += 1
            return False

    def record_success(self) -> None:
        """The server answered: close the breaker and forget past failures."""
        with self._lock:
            self._successes += 1
            self._consecutive_failures = 0
            self._trial_in_flight = False
            self._state = "closed"

    def record_failure(self) -> None:
        """The server failed (timeout, connection error, 5xx): open on the threshold or a failed trial."""
        with self._lock:
            self._failures += 1
            self._consecutive_failures += 1
            state = self._current_state()
            if state == "half_open" or (state == "closed" and self._consecutive_failures >= self.failure_threshold):
                self._state = "open"
                self._opened_at = self._clock()
                self._trial_in_flight = False
                self._openings += 1

    def cooldown_remaining_s(self) -> float:
        """Seconds until an open breaker lets a trial call through (0 when it is not open)."""
        with self._lock:
            if self._current_state() != "open":
                return 0.0
            return max(0.0, self.cooldown_s - (self._clock() - self._opened_at))

    def snapshot(self) -> BreakerSnapshot:
        """Return the state and counters, consistently read under the lock."""
        with self._lock:
            return BreakerSnapshot(
                state=self._current_state(),
                consecutive_failures=self._consecutive_failures,
                failures=self._failures,
                successes=self._successes,
                openings=self._openings,
                rejections=self._rejections,
            )
