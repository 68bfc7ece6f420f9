"""The scheduler's wake-ups (ltrconv.pipeline.scheduler): the profile's timespan, and the last
wake-up cancelled at the end of a run."""

from __future__ import annotations

import inspect
import threading
import types

import pytest
import yaml

from ltrconv.pipeline import scheduler

from workflow_helpers import REPO


def _timer(module: str, delay: float = 600.0) -> tuple[threading.Timer, threading.Event]:
    """A started timer whose function belongs to ``module``; the event is set if it runs."""
    ran = threading.Event()
    function = types.FunctionType(compile("ran.set()", module, "eval"),
                                  {"__name__": module, "ran": ran})
    timer = threading.Timer(delay, function)
    timer.daemon = True  # never keeps the test process alive, whatever the assertions say
    timer.start()
    return timer, ran


def test_the_schedulers_pending_wakeup_is_cancelled_and_other_timers_are_not():
    mine, mine_ran = _timer(scheduler.SCHEDULER_MODULE)
    other, _ = _timer("some.other.module")
    soon, soon_ran = _timer(scheduler.SCHEDULER_MODULE, delay=0.0)
    soon.join(10)
    assert soon_ran.is_set()  # a timer that already fired is left alone
    try:
        assert scheduler.cancel_wakeups([mine, other, soon]) == 1
        mine.join(10)
        assert not mine.is_alive() and not mine_ran.is_set()
        assert other.is_alive()
        # by default, among the live threads (>= 1: the test process may hold others)
        again, again_ran = _timer(scheduler.SCHEDULER_MODULE)
        assert scheduler.cancel_wakeups() >= 1
        again.join(10)
        assert not again.is_alive() and not again_ran.is_set()
        assert other.is_alive()
    finally:
        other.cancel()


def test_the_snakemake_installed_wakes_its_scheduler_with_a_timer_from_that_module():
    """What cancel_wakeups relies on, in the Snakemake installed here: the re-selection after a
    timespan is a threading.Timer calling a function of SCHEDULER_MODULE."""
    job_scheduler = pytest.importorskip(scheduler.SCHEDULER_MODULE)
    source = inspect.getsource(job_scheduler.JobScheduler._schedule_reevalutation)
    assert "threading.Timer(" in source
    assert job_scheduler.__name__ == scheduler.SCHEDULER_MODULE


def test_the_default_profile_wakes_the_scheduler_every_ten_seconds_and_the_handlers_cancel():
    profile = yaml.safe_load((REPO / "profiles" / "default" / "config.yaml").read_text())
    assert profile["max-jobs-per-timespan"] == "100/10s"
    handlers = (REPO / "workflow" / "rules" / "handlers.smk").read_text()
    for handler in ("onsuccess:", "onerror:"):
        body = handlers.split(handler, 1)[1].split("\n\n\n", 1)[0]
        assert "cancel_scheduler_wakeups()" in body, handler
