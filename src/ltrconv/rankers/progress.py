"""Progress of a long fit: now and then a line saying where training is, the best validation
score so far, the time spent and an estimate of the time left.

A fit is silent unless asked (``fit(..., verbose=True)``: lines on stderr; ``verbose=f``: each
line handed to ``f``, e.g. a logger's ``info``). The first line comes after :data:`FIRST`
seconds, the next ones every :data:`EVERY` seconds at most, so a short fit prints nothing and a
long one a line every few seconds; a step of training checks the clock and nothing else.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Sequence

FIRST = 5.0
EVERY = 10.0


def _stderr(line: str) -> None:
    """``line`` on stderr; nothing when stderr is closed or cannot be written (the fit goes on)."""
    if sys.stderr is None:
        return
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Reports one fit's progress to ``report`` (None: silent). ``metrics`` name the best
    scores a step reports (several under :meth:`~ltrconv.rankers.base.Ranker.fit_many`)."""

    def __init__(self, name: str, report: Callable[[str], None] | None,
                 metrics: Sequence[str] = (), clock: Callable[[], float] = time.monotonic):
        self.name, self.report, self.metrics = name, report, list(metrics)
        self.clock, self.every = clock, EVERY
        self.start = clock()
        self.next = self.start + FIRST

    @classmethod
    def of(cls, verbose, name: str, metrics: Sequence[str] = ()) -> "Progress":
        """The progress a fit's ``verbose`` asks for: False, 0 or None silent, True (or a
        positive number) lines on stderr, a callable each line handed to it."""
        if callable(verbose):
            return cls(name, verbose, metrics)
        if isinstance(verbose, (bool, int, float)) and not isinstance(verbose, complex):
            return cls(name, _stderr if verbose else None, metrics)
        raise TypeError(f"verbose must be a bool or a callable taking a line, got {verbose!r}")

    def step(self, done: int, total: int, where: Callable[[], str], best=None) -> None:
        """``done`` of at most ``total`` steps are over; ``where()`` says which, in words;
        ``best``: the best validation score so far (one per metric, or one)."""
        if self.report is None:
            return
        now = self.clock()
        if now < self.next:
            return
        self.next = now + self.every
        elapsed = now - self.start
        line = f"{self.name}: {where()}"
        if best is not None:
            scores = list(best) if isinstance(best, (list, tuple)) else [best]
            named = [f"{m} {s:.4f}" for m, s in zip(self.metrics, scores)] if self.metrics \
                else [f"{s:.4f}" for s in scores]
            line += f"; best validation {', '.join(named)}"
        line += f"; {_duration(elapsed)} elapsed"
        if 0 < done < total:
            line += f", at most {_duration(elapsed * (total - done) / done)} left"
        self.report(line)


SILENT = Progress("", None)
"""A fit's progress when nobody asked."""
