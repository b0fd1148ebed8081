"""`StepLimit`: the per-step time limit of a live run, kept by a watchdog thread of its own.

A node that never returns (a network call without a timeout, an endless loop) blocks the thread that
drives the run, and Python cannot interrupt it. So the limit is kept beside the run: the controller
says what it times (a superstep, or an edit between two), the watchdog wakes when that outlives the
limit and calls back, and the controller ends the run `timeout` as Stop ends it. The limit is held
while an `interrupt()` waits for the user's answer: thinking is not hanging.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

__all__ = ["StepLimit"]


class StepLimit:
    """Calls `on_expiry()` once, from its own thread, when what is timed takes longer than `seconds`."""

    def __init__(self, seconds: float, on_expiry: Callable[[], None], *, name: str = "") -> None:
        self.seconds = seconds
        self.what = ""
        """What is timed now, or the last thing timed: `step` or `edit`."""
        self.expired = False
        """True once `on_expiry` was called."""
        self._on_expiry = on_expiry
        self._deadline: float | None = None
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._watch, name=f"stepscope-limit-{name}", daemon=True)

    def start(self) -> "StepLimit":
        self._thread.start()
        return self

    def time(self, what: str | None) -> None:
        """Starts timing `what` (`step` or `edit`), with the whole limit ahead; None: times nothing."""
        with self._cond:
            self._deadline = None if what is None else time.monotonic() + self.seconds
            self.what = what or self.what
            self._cond.notify_all()

    def close(self) -> None:
        """The run is over: the watchdog ends."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                left = None if self._deadline is None else self._deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._cond.wait(left)
            else:
                return
            self.expired, self._closed = True, True
        self._on_expiry()
