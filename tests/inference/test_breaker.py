"""The circuit breaker opens on consecutive failures, lets one trial through after the cool-down, and closes."""

from __future__ import annotations

import threading

import pytest

from inference.breaker import CircuitBreaker


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def breaker(clock: FakeClock) -> CircuitBreaker:
    return CircuitBreaker(failure_threshold=3, cooldown_s=10.0, clock=clock)


def trip(breaker: CircuitBreaker) -> None:
    """Fail as many times in a row as the threshold allows."""
    for _ in range(breaker.failure_threshold):
        breaker.record_failure()


def test_breaker_stays_closed_below_the_threshold(breaker: CircuitBreaker) -> None:
    breaker.record_failure()
    breaker.record_failure()
    assert breaker.state == "closed"
    assert breaker.allow()


def test_a_success_resets_the_consecutive_failure_count(breaker: CircuitBreaker) -> None:
    for _ in range(2):
        breaker.record_failure()
    breaker.record_success()
    for _ in range(2):
        breaker.record_failure()
    assert breaker.state == "closed"
    assert breaker.snapshot().failures == 4


def test_breaker_opens_after_n_consecutive_failures_and_rejects_calls(breaker: CircuitBreaker) -> None:
    trip(breaker)
    assert breaker.state == "open"
    assert not breaker.allow()
    snapshot = breaker.snapshot()
    assert (snapshot.openings, snapshot.failures, snapshot.rejections) == (1, 3, 1)


def test_breaker_half_opens_after_the_cooldown_and_admits_exactly_one_trial(
    breaker: CircuitBreaker, clock: FakeClock
) -> None:
    trip(breaker)
    clock.now += 9.9
    assert breaker.state == "open"
    clock.now += 0.1
    assert breaker.state == "half_open"
    assert breaker.allow()
    assert not breaker.allow(), "a second caller must wait for the trial's outcome"


def test_successful_trial_closes_the_breaker(breaker: CircuitBreaker, clock: FakeClock) -> None:
    trip(breaker)
    clock.now += 10
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed"
    assert breaker.allow() and breaker.allow()


def test_failed_trial_reopens_the_breaker_for_another_cooldown(breaker: CircuitBreaker, clock: FakeClock) -> None:
    trip(breaker)
    clock.now += 10
    assert breaker.allow()
    breaker.record_failure()
    assert breaker.state == "open"
    assert breaker.snapshot().openings == 2
    clock.now += 5
    assert not breaker.allow()
    clock.now += 5
    assert breaker.state == "half_open"


def test_breaker_counts_consistently_under_concurrent_failures(clock: FakeClock) -> None:
    breaker = CircuitBreaker(failure_threshold=1000, cooldown_s=1.0, clock=clock)

    def fail_many() -> None:
        for _ in range(250):
            breaker.record_failure()

    threads = [threading.Thread(target=fail_many) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    snapshot = breaker.snapshot()
    assert snapshot.failures == 2000
    assert snapshot.openings == 1 and snapshot.state == "open"


def test_breaker_rejects_nonsense_settings() -> None:
    with pytest.raises(ValueError):
        CircuitBreaker(failure_threshold=0, cooldown_s=1.0)
