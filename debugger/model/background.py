"""Work the page must not wait for: a long run's findings, computed in a daemon thread.

`diagnose` reads every step of a run (about 0.2 ms of CPU a step: 40 s at 200,000 steps). The step page
asks for the findings at its first paint (the 🔎 marks, the Findings tab's count), so for a run of more
than `LONG_RUN_STEPS` steps the first ask starts a thread and answers None ("not yet"); the page says the
run is still being checked and reruns itself once the answer is there. Shorter runs are computed when
asked, in the asking thread, as they always were.

The thread has no Streamlit context: it calls no `st.*` function, and it speaks the language it was
started for (`i18n.using`), since the words of a finding are written in the language of whoever asked.
It is a daemon, so an interpreter that exits (a test session, a stopped server) does not wait for it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

from debugger import i18n
from debugger.sources.trace_stream import give_way_while_reading

T = TypeVar("T")

LONG_RUN_STEPS = 5_000
"""Above this many steps a run's findings are computed in the background. `diagnose` takes about a second
at 5,000 steps (0.2 ms a step), the most a page should wait for at its first paint; every sample and
test run is far shorter, so they keep being computed when asked."""


HEAD_START = 5.0
"""At most this many seconds a thread waits for the page that started it to be drawn (`Background.after`):
one thread runs Python at a time, and a thread reading 200,000 steps would take half of the page's time."""


class Background(Generic[T]):
    """`compute()` run once per language in a daemon thread, started by the first `get` for it. With `after`,
    the thread waits until that event is set (the page drawn), `HEAD_START` seconds at most, then computes."""

    def __init__(
        self, compute: Callable[[], T], name: str = "stepscope-background", after: threading.Event | None = None
    ) -> None:
        self._compute = compute
        self._name = name
        self._after = after
        self._lock = threading.Lock()
        self._done: dict[str, T] = {}
        self._failed: dict[str, BaseException] = {}
        self._threads: dict[str, threading.Thread] = {}

    def get(self, language: str) -> T | None:
        """The answer in `language`, or None while it is being computed (the first call starts it). An
        error the computation raised is raised here, in the asking thread, where the page shows it."""
        with self._lock:
            if language in self._done:
                return self._done[language]
            if language in self._failed:
                raise self._failed[language]
            if language not in self._threads:
                thread = threading.Thread(target=self._run, args=(language,), name=self._name, daemon=True)
                self._threads[language] = thread
                thread.start()
        return None

    def pending(self, language: str) -> bool:
        """Started in `language` and not finished."""
        with self._lock:
            return language in self._threads and language not in self._done and language not in self._failed

    def wait(self, language: str, timeout: float | None = None) -> bool:
        """Blocks until the computation in `language` (if started) ends; False if it is still running."""
        thread = self._threads.get(language)
        if thread is not None:
            thread.join(timeout)
        return not self.pending(language)

    def _run(self, language: str) -> None:
        if self._after is not None:
            self._after.wait(HEAD_START)
        give_way_while_reading()
        try:
            with i18n.using(language):
                result = self._compute()
        except BaseException as exc:  # kept for the asking thread: a thread's own error would only be printed
            with self._lock:
                self._failed[language] = exc
            return
        with self._lock:
            self._done[language] = result


SHARED_RUNS = 4
"""How many long runs' findings a server keeps for every session that opens them (`shared`)."""

_shared: OrderedDict[Hashable, Background] = OrderedDict()
_shared_lock = threading.Lock()


def shared(key: Hashable | None, make: Callable[[], Background[T]]) -> Background[T]:
    """The one `Background` of a run for every session of this server that opens it: `key` says which run it
    is (`debugger.sources.trace_stream.LazySteps.identity`: the file or stored run and its content), and the
    first session's `make()` is kept for the others, so two tabs on a 200,000-step run compute its findings
    once, not twice at once. A run without a key (in memory, or opened from code with its own live graph) gets
    a `Background` of its own. The `SHARED_RUNS` most recently opened are kept."""
    if key is None:
        return make()
    with _shared_lock:
        found = _shared.get(key)
        if found is None:
            found = _shared[key] = make()
            if len(_shared) > SHARED_RUNS:
                _shared.popitem(last=False)
        else:
            _shared.move_to_end(key)
        return found
